// DetectionRepo on both engines (a real migrated SQLite file, a real PostgreSQL database): the
// receivers a detector watches are those of live intents and of intents closed within the
// look-back, each with its earliest createdAt, in byte order; checked against the definition
// computed here from the rows themselves. References, scan cursors, unfinalized matches.
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentState } from '../../src/domain/intent';
import { statesTagged } from '../../machines/judge';
import type { StoreRepos } from '../../src/store/store';
import { storedIntent } from '../support/db';
import { ENGINES, engineStore, type EngineStore } from '../support/engines';

let open: EngineStore | null = null;
afterEach(async () => {
  await open?.dispose();
  open = null;
});
const reposOf = async (engine: (typeof ENGINES)[number]): Promise<StoreRepos> => (open = await engineStore(engine)).store.repos;

const LIVE: readonly IntentState[] = statesTagged('live');
const STATES: IntentState[] = ['created', 'pending', 'confirmed', 'dropped', 'finalized', 'failed', 'expired', 'cancelled'];

describe.each(ENGINES)('DetectionRepo (%s)', (engine) => {
  it('receivers match their definition over live and closed intents of several receivers and chains', async () => {
    const { intents, detection } = await reposOf(engine);
    // Mixed case on purpose: the order is byte order on both engines, whatever PostgreSQL's locale.
    const requestors = ['0x1111111111111111111111111111111111111111', '0xAbCd000000000000000000000000000000000000', '0xaaaa000000000000000000000000000000000000'];
    const tokens = ['0x036CbD53842c5426634e7929541eC2318f3dCF7e', '0x0000000000000000000000000000000000000001'];
    const chains = ['eip155:84532', 'eip155:8453'];
    const rows = [];
    // A fixed pseudo-random walk over receivers, states and times (no Math.random: reproducible).
    let x = 7;
    const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
    for (let i = 0; i < 400; i++) {
      const row = storedIntent({
        chain: chains[next(2)]!, requestor: requestors[next(3)]!, tokenAddress: tokens[next(2)]!, state: STATES[next(STATES.length)]!,
        createdAt: 1_000 + next(10_000), updatedAt: 5_000 + next(10_000),
      });
      await intents.insert(row);
      rows.push(row);
    }
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
        expect(await detection.receivers(chain, since)).toEqual(want);
      }
    }
    expect(await detection.receivers('solana:devnet', 0)).toEqual([]);
  });

  it('references of watched Solana intents, cursors, and matched payments short of finality', async () => {
    const { intents, detection, payments } = await reposOf(engine);
    const chain = 'solana:devnet';
    const sol = { chain, requestor: 'Req1', tokenAddress: 'Mint1' };
    const live = storedIntent({ ...sol, solanaReference: 'refLive', createdAt: 5 });
    const closedRecent = storedIntent({ ...sol, solanaReference: 'refRecent', state: 'expired', updatedAt: 100, createdAt: 6 });
    const closedOld = storedIntent({ ...sol, solanaReference: 'refOld', state: 'expired', updatedAt: 10 });
    for (const i of [live, closedRecent, closedOld]) await intents.insert(i);
    const refs = await detection.references(chain, 50);
    expect([...refs].sort((a, b) => a.createdAt - b.createdAt)).toEqual([
      { reference: 'refLive', requestor: 'Req1', tokenAddress: 'Mint1', createdAt: 5 },
      { reference: 'refRecent', requestor: 'Req1', tokenAddress: 'Mint1', createdAt: 6 },
    ]);

    expect(await detection.getCursor(chain, 'Req1')).toBeNull();
    await detection.setCursor(chain, 'Req1', 'sig1', 1);
    await detection.setCursor(chain, 'Req1', 'sig2', 2);
    await detection.setCursor('eip155:8453', 'Req1', 'block9', 2);
    expect(await detection.getCursor(chain, 'Req1')).toBe('sig2');
    expect(await detection.getCursor('eip155:8453', 'Req1')).toBe('block9');

    // A matched payment of a pending intent, one of a finalized intent, and an ambiguous one.
    const pending = storedIntent({ state: 'pending', txSignature: '0xp' });
    const finalized = storedIntent({ state: 'finalized', txSignature: '0xf' });
    const ambiguous = storedIntent({ state: 'expired', txSignature: '0xa' });
    for (const i of [pending, finalized, ambiguous]) await intents.insert(i);
    const pay = (txSignature: string, intentId: string | null, status: 'matched' | 'unmatched', reason: 'ambiguous' | null) =>
      payments.insert({
        id: `pay_${txSignature}`, accountId: 'acct_a', mode: 'test', chain: 'eip155:84532', token: 'USDC', tokenAddress: '0xtoken', decimals: 6,
        amountBaseUnits: 2n ** 70n, from: '0xfrom', to: '0xto', txSignature, intentId, status, reason, detectedAt: 1,
      });
    await pay('0xp', pending.id, 'matched', null);
    await pay('0xf', finalized.id, 'matched', null);
    await pay('0xa', null, 'unmatched', 'ambiguous');
    const found = await detection.unfinalizedMatches('eip155:84532');
    expect([...found].sort((a, b) => (a.txSignature < b.txSignature ? -1 : 1))).toEqual([
      { txSignature: '0xa', intentId: null, tokenAddress: '0xtoken', from: '0xfrom', to: '0xto', amountBaseUnits: 2n ** 70n },
      { txSignature: '0xp', intentId: pending.id, tokenAddress: '0xtoken', from: '0xfrom', to: '0xto', amountBaseUnits: 2n ** 70n },
    ]);
    expect(await detection.unfinalizedMatches(chain)).toEqual([]);
  });

  it('unfinalized matches agree with their definition over payments of many intents, states and chains, in seq order', async () => {
    const { intents, detection, payments } = await reposOf(engine);
    const WATCHING: readonly IntentState[] = statesTagged('watching');
    const chains = ['eip155:84532', 'eip155:8453'];
    // The high bits of a fixed LCG (its low bits cycle with a short period): reproducible.
    let x = 11;
    const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), Math.floor(x / 65536) % n);
    const held = new Map<string, IntentState>();
    for (let i = 0; i < 150; i++) {
      const row = storedIntent({ chain: chains[next(2)]!, state: STATES[next(STATES.length)]!, txSignature: `0xt${i}` });
      await intents.insert(row);
      held.set(`${row.chain} ${row.txSignature}`, row.state);
    }
    const kinds = [
      { status: 'matched', reason: null },
      { status: 'unmatched', reason: 'ambiguous' },
      { status: 'unmatched', reason: 'no_open_intent' },
      { status: 'late', reason: 'intent_closed' },
    ] as const;
    const written: Array<{ chain: string; txSignature: string; status: string; reason: string | null }> = [];
    // Each intent's transaction paid once (on its chain or the other), and transactions no intent holds.
    for (let i = 0; i < 200; i++) {
      const k = kinds[next(kinds.length)]!;
      const p = { chain: chains[next(2)]!, txSignature: i < 150 ? `0xt${i}` : `0xnone${i}`, ...k };
      if (written.some((w) => w.chain === p.chain && w.txSignature === p.txSignature)) continue;
      await payments.insert({
        id: `pay_${i}`, accountId: 'acct_a', mode: 'test', chain: p.chain, token: 'USDC', tokenAddress: '0xtoken', decimals: 6,
        amountBaseUnits: BigInt(i), from: '0xfrom', to: '0xto', txSignature: p.txSignature, intentId: null, status: p.status, reason: p.reason, detectedAt: 1,
      });
      written.push(p);
    }
    for (const chain of chains) {
      const want = written
        .filter((p) => p.chain === chain)
        .filter((p) => {
          const state = held.get(`${p.chain} ${p.txSignature}`);
          return state !== undefined && ((p.status === 'matched' && WATCHING.includes(state)) || p.reason === 'ambiguous');
        })
        .map((p) => p.txSignature);
      expect(want.length).toBeGreaterThan(3);
      expect((await detection.unfinalizedMatches(chain)).map((m) => m.txSignature)).toEqual(want);
    }
  });
});
