// DetectionRepo.receivers on a real migrated SQLite file: the receivers a detector watches are those
// of live intents and of intents closed within the look-back, each with its earliest createdAt;
// checked against the definition computed here from the rows themselves.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IntentState } from '../../src/domain/intent';
import { statesTagged } from '../../machines/judge';
import { createDetectionRepo } from '../../src/store/detection';
import { createIntentRepo } from '../../src/store/intents';
import { storedIntent, tempDb, type TempDb } from '../support/db';

let t: TempDb;
beforeEach(() => (t = tempDb()));
afterEach(() => t.dispose());

const LIVE: readonly IntentState[] = statesTagged('live');
const STATES: IntentState[] = ['created', 'pending', 'confirmed', 'dropped', 'finalized', 'failed', 'expired', 'cancelled'];

describe('DetectionRepo.receivers', () => {
  it('matches its definition over live and closed intents of several receivers and chains', () => {
    const intents = createIntentRepo(t.db.sqlite, { live: LIVE });
    const requestors = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', '0xaaaa000000000000000000000000000000000000'];
    const tokens = ['0x036CbD53842c5426634e7929541eC2318f3dCF7e', '0x0000000000000000000000000000000000000001'];
    const chains = ['eip155:84532', 'eip155:8453'];
    const rows = [];
    // A fixed pseudo-random walk over receivers, states and times (no Math.random: reproducible).
    let x = 7;
    const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
    for (let i = 0; i < 400; i++) {
      const row = storedIntent({
        chain: chains[next(2)]!,
        requestor: requestors[next(3)]!,
        tokenAddress: tokens[next(2)]!,
        state: STATES[next(STATES.length)]!,
        createdAt: 1_000 + next(10_000),
        updatedAt: 5_000 + next(10_000),
      });
      intents.insert(row);
      rows.push(row);
    }
    const detection = createDetectionRepo(t.db.sqlite, { live: LIVE, watching: statesTagged('watching') });
    for (const chain of chains) {
      for (const since of [0, 9_000, 12_000, 20_000]) {
        const expected = new Map<string, { requestor: string; tokenAddress: string; since: number }>();
        for (const r of rows) {
          if (r.chain !== chain || !(LIVE.includes(r.state) || r.updatedAt >= since)) continue;
          const k = `${r.requestor} ${r.tokenAddress}`;
          const cur = expected.get(k);
          if (!cur || r.createdAt < cur.since) expected.set(k, { requestor: r.requestor, tokenAddress: r.tokenAddress, since: r.createdAt });
        }
        const want = [...expected.values()].sort((a, b) => (a.requestor + a.tokenAddress < b.requestor + b.tokenAddress ? -1 : 1));
        expect(detection.receivers(chain, since)).toEqual(want);
      }
    }
    expect(detection.receivers('solana:devnet', 0)).toEqual([]);
  });
});
