// The API key look-up remembers its answers (src/store/api-key-lookup.ts): a revoke or a plan
// change through the same connection is seen by the very next look-up, one by another connection
// (the CLI, another process) by the first look-up of the next event-loop turn.
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount, setAccountPlan } from '../../src/store/accounts';
import { createApiKey, findActiveKeyByHash, hashApiKey, revokeApiKey } from '../../src/store/api-keys';
import { openDb } from '../../src/store/db';
import { tempDb, type TempDb } from '../support/db';

/** The next event-loop turn (setImmediate callbacks run in order: the look-up's own ran before). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

let t: TempDb;
afterEach(() => t?.dispose());

describe('findActiveKeyByHash', () => {
  it('a revoke through the same connection: the next look-up answers null, in the same turn', () => {
    t = tempDb();
    const acct = createAccount(t.db, { name: 'a', plan: 'pro' });
    const k = createApiKey(t.db, { accountId: acct.id, mode: 'test' });
    const h = hashApiKey(k.key);
    expect(findActiveKeyByHash(t.db, h)).toEqual({ keyId: k.id, accountId: acct.id, mode: 'test', plan: 'pro' });
    expect(findActiveKeyByHash(t.db, h)?.keyId).toBe(k.id);
    revokeApiKey(t.db, k.id);
    expect(findActiveKeyByHash(t.db, h)).toBeNull();
  });

  it('a plan change through the same connection: the next look-up carries the new plan', () => {
    t = tempDb();
    const acct = createAccount(t.db, { name: 'a', plan: 'free' });
    const h = hashApiKey(createApiKey(t.db, { accountId: acct.id, mode: 'live' }).key);
    expect(findActiveKeyByHash(t.db, h)?.plan).toBe('free');
    setAccountPlan(t.db, acct.id, 'pro');
    expect(findActiveKeyByHash(t.db, h)?.plan).toBe('pro');
  });

  it('a revoke or plan change by another connection: seen from the next turn on', async () => {
    t = tempDb();
    const other = openDb(t.path);
    try {
      const acct = createAccount(t.db, { name: 'a', plan: 'free' });
      const one = createApiKey(t.db, { accountId: acct.id, mode: 'test' });
      const two = createApiKey(t.db, { accountId: acct.id, mode: 'test' });
      const [h1, h2] = [hashApiKey(one.key), hashApiKey(two.key)];
      expect(findActiveKeyByHash(t.db, h1)?.plan).toBe('free');
      expect(findActiveKeyByHash(t.db, h2)?.plan).toBe('free');
      await nextTurn();
      setAccountPlan(other, acct.id, 'pro');
      expect(findActiveKeyByHash(t.db, h1)?.plan).toBe('pro');
      await nextTurn();
      revokeApiKey(other, one.key);
      expect(findActiveKeyByHash(t.db, h1)).toBeNull();
      expect(findActiveKeyByHash(t.db, h2)?.keyId).toBe(two.id);
      // Unknown keys are never remembered: one created elsewhere works at once.
      const three = createApiKey(other, { accountId: acct.id, mode: 'test' });
      expect(findActiveKeyByHash(t.db, hashApiKey(three.key))?.keyId).toBe(three.id);
    } finally {
      other.close();
    }
  });
});
