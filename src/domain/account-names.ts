// The account (merchant) name a payer's wallet shows: the Solana Pay `label` of `paymentUri`
// (contract 11). The wire intent is built from its row wherever it is rendered (API answers,
// webhook envelopes, the events API), and the name lives on the account, so each core (one
// database) registers its lookup here and every rendering agrees. Names never change after an
// account is created, so each is read once per process.
type Lookup = (accountId: string) => string | null;
const lookups = new Set<Lookup>();
const cache = new Map<string, string>();

/** Registered by the composition root for its database; the returned function removes it (core stop). */
export function registerAccountNames(fn: Lookup): () => void {
  lookups.add(fn);
  return () => void lookups.delete(fn);
}

/** null when no registered database knows the account (intents rendered outside a core). */
export function accountNameOf(accountId: string): string | null {
  const hit = cache.get(accountId);
  if (hit !== undefined) return hit;
  for (const lookup of lookups) {
    const name = lookup(accountId);
    if (name !== null) {
      cache.set(accountId, name);
      return name;
    }
  }
  return null;
}
