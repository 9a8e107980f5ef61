// A fresh SQLite file with the real migrations, and a StoredIntent factory for store tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../src/store/db';
import type { IntentStorage, StoredIntent } from '../../src/store/intents';
import { intentRecord } from './intent-record';

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
  const storage: IntentStorage = { buildData: null, signedTransaction: null, watchData: null, snapshot: '{"value":"created"}', machineVersion: 1 };
  return { ...intentRecord(), ...storage, ...over };
}
