// Who is calling: resolved from the API key by the API layer, handed to every verb.
import type { Mode } from './intent';

export interface Caller {
  accountId: string;
  mode: Mode;
  plan: 'free' | 'pro';
  keyId: string;
}

/** Whose objects a webhook verb acts on: an API caller's account and mode, or the ones the
 * operator (dashboard, CLI) picked. A Caller is one. */
export type Owner = Pick<Caller, 'accountId' | 'mode'>;

/** The operator (the dashboard's admin): every account, or the one account and mode it picked. */
export interface Operator {
  operator: true;
  accountId?: string;
  mode?: Mode;
}
