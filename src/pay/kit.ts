// What the route files of the payment page share (index.ts builds it, solana-pay.ts uses it).
import type { Caller } from '../domain/caller';
import type { Services } from '../intents/services';
import type { StoredIntent } from '../store/intents';

export interface PayRouteKit {
  services: Services;
  /** The intent behind a token (rate-limited), or 404 intent.not_found. */
  must(token: string): Promise<StoredIntent & { payToken: string }>;
  ownerOf(i: StoredIntent & { payToken: string }): Caller;
  merchantName(accountId: string): Promise<string>;
  publicUrl(): string;
}

