// A fresh SQLite file with the real migrations, and a StoredIntent factory for store tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/domain/ids';
import { newPayToken } from '../../src/domain/pay-url';
import { FRESH_LIFECYCLE } from '../../src/intents/fresh-intent';
import { openDb, type Db } from '../../src/store/db';
import type { StoredIntent } from '../../src/store/intents';

export interface TempDb {
  db: Db;
  path: string;
  dir: string;
  /** Close and remove the folder. */
  dispose(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-store-'));
  const path = join(dir, 'payforge.db');
  const db = openDb(path);
  return {
    db,
    path,
    dir,
    dispose() {
      try {
        db.close();
      } catch {
        /* already closed */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function storedIntent(over: Partial<StoredIntent> = {}): StoredIntent {
  const now = 1_700_000_000_000;
  return {
    id: newId('pi'),
    accountId: 'acct_a',
    mode: 'test',
    chain: 'eip155:84532',
    token: 'USDC',
    tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    decimals: 6,
    amountBaseUnits: 12_340_000n,
    requestor: '0x1111111111111111111111111111111111111111',
    fulfiller: null,
    direction: 'request',
    solanaReference: null,
    state: 'created',
    reference: null,
    metadata: {},
    idempotencyKey: null,
    ttlSeconds: 900,
    expiresAt: now + 900_000,
    createdAt: now,
    updatedAt: now,
    refundOf: null,
    payToken: newPayToken(),
    ...FRESH_LIFECYCLE,
    snapshot: '{"value":"created"}',
    machineVersion: 1,
    ...over,
  };
}
