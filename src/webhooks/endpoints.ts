// Which secrets sign a delivery now, from an account's endpoint row (src/store/webhook-endpoints.ts).
import type { EndpointRow } from '../store/webhook-endpoints';

/** The secrets that sign now: the current one first, the previous one while its overlap lasts. */
export function activeSecrets(e: EndpointRow, now: number): string[] {
  return e.previousSecret !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now
    ? [e.secret, e.previousSecret]
    : [e.secret];
}
