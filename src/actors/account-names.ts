// The account (merchant) names the wire intent shows (src/domain/account-names.ts asks for them
// synchronously, wherever an intent is rendered), over a store whose reads may be asynchronous.
// Accounts are few and a name never changes once created: all are loaded at boot, and an account
// created later (by the CLI, or another instance) is loaded before its caller's request runs and
// before the live rows that name it are followed. A SQLite read is synchronous and answered at
// once, as before; on PostgreSQL a name still unknown starts a load (null until it lands).
import type { Log } from '../log';
import type { AccountRepo } from '../store/accounts';

export interface AccountNames {
  /** The name, or null when this process does not know the account (yet). */
  get(accountId: string): string | null;
  has(accountId: string): boolean;
  /** Load the accounts not known yet. */
  ensure(accountIds: readonly string[]): Promise<void>;
  /** Every account (boot). */
  load(): Promise<void>;
  stop(): void;
}

export function createAccountNames(accounts: Pick<AccountRepo, 'get' | 'list'>, log: Log): AccountNames {
  const names = new Map<string, string>();
  const loading = new Set<string>();
  let stopped = false;

  async function loadOne(id: string): Promise<void> {
    if (names.has(id) || loading.has(id) || stopped) return;
    loading.add(id);
    try {
      const a = await accounts.get(id);
      if (a) names.set(a.id, a.name);
    } finally {
      loading.delete(id);
    }
  }

  return {
    get(accountId) {
      const hit = names.get(accountId);
      if (hit !== undefined) return hit;
      const read = accounts.get(accountId);
      if (!(read instanceof Promise)) {
        if (read !== null) names.set(read.id, read.name);
        return read?.name ?? null;
      }
      read.then(
        (a) => void (a && names.set(a.id, a.name)),
        (e) => log('warn', 'loading an account name failed', { account_id: accountId, error: String(e) }),
      );
      return null;
    },
    has: (accountId) => names.has(accountId),
    async ensure(accountIds) {
      await Promise.all([...new Set(accountIds)].map(loadOne));
    },
    async load() {
      for (const a of await accounts.list()) names.set(a.id, a.name);
    },
    stop() {
      stopped = true;
    },
  };
}
