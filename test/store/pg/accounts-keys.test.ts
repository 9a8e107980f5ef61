// Accounts and API keys on a real PostgreSQL (the operator's counts: intents-overview.test.ts) with the real migrations.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/store/api-keys';
import { createAccount, createPgAccountRepo, setAccountPlan } from '../../../src/store/pg/accounts';
import { createPgApiKeyRepo } from '../../../src/store/pg/api-keys';
import { type PgTestDb, pgTestDb } from './db';

let t: PgTestDb;
beforeEach(async () => (t = await pgTestDb()));
afterEach(() => t.dispose());

describe('accounts and API keys (PostgreSQL)', () => {
  it('creates, lists oldest first, changes plans, with the SQLite store\'s errors', async () => {
    const accounts = createPgAccountRepo(t.sql);
    const a = await createAccount(t.sql, { name: '  Shop  ', plan: 'pro' });
    const b = await createAccount(t.sql, { name: 'Other' });
    expect(a).toMatchObject({ name: 'Shop', plan: 'pro' });
    expect(await accounts.get(a.id)).toEqual(a);
    expect(await accounts.get('acct_none')).toBeNull();
    expect((await accounts.list()).map((x) => x.id)).toEqual(a.createdAt <= b.createdAt ? [a.id, b.id] : [b.id, a.id]);
    expect(await setAccountPlan(t.sql, b.id, 'pro')).toEqual({ ...b, plan: 'pro' });
    await expect(setAccountPlan(t.sql, 'acct_none', 'pro')).rejects.toMatchObject({ code: 'account.not_found' });
    await expect(createAccount(t.sql, { name: ' ' })).rejects.toMatchObject({ code: 'request.invalid_param' });
  });

  it('keys: shown once, found by hash while active, touched in a batch, revoked once', async () => {
    const a = await createAccount(t.sql, { name: 'Shop', plan: 'pro' });
    const keys = createPgApiKeyRepo(t.sql);
    const k = await keys.create({ accountId: a.id, mode: 'test' });
    expect(k.key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    await expect(keys.create({ accountId: 'acct_none', mode: 'test' })).rejects.toMatchObject({ code: 'account.not_found' });
    expect(await keys.findActiveByHash(hashApiKey(k.key))).toEqual({ keyId: k.id, accountId: a.id, mode: 'test', plan: 'pro' });
    expect(await keys.accountOf(k.id)).toBe(a.id);
    await keys.touch(new Map([[k.id, 1234]]));
    expect(await keys.list(a.id)).toEqual([expect.objectContaining({ id: k.id, last4: k.last4, lastUsedAt: 1234, revokedAt: null })]);
    const revoked = await keys.revoke(k.key);
    expect(typeof revoked.revokedAt).toBe('number');
    expect((await keys.revoke(k.id)).revokedAt).toBe(revoked.revokedAt);
    expect(await keys.findActiveByHash(hashApiKey(k.key))).toBeNull();
    await expect(keys.revoke('key_none')).rejects.toMatchObject({ code: 'key.not_found' });
    await expect(keys.revoke('key_\u0000')).rejects.toMatchObject({ code: 'key.not_found' });
    expect(await keys.accountOf('key_\u0000')).toBeNull();
  });
});
