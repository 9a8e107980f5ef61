// Who is calling: resolved from the API key by the API layer, handed to every verb.
import type { Mode } from './intent';

export interface Caller {
  accountId: string;
  mode: Mode;
  plan: 'free' | 'pro';
  keyId: string;
}
