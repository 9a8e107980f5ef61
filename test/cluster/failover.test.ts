// Issue 12 / contract 13: kill -9 of the instance that owns a pending Solana intent and a pending
// EVM intent (the holder of both intents' shard leases, read from the `leases` table). Another
// instance takes the shards over and drives both to finalized by itself: the chains are held while
// the owner lives (the EVM transfer waits in anvil's mempool, the Solana one is dropped by the
// leader) and after the kill anvil's mempool is emptied too, so only a rebroadcast of the stored
// bytes by the new owner can land them. Every event reaches the webhook receiver; an event is
// received more than once only as at-least-once allows (an attempt the dead instance may have made
// without recording it), and the event log of each intent is complete and in order.
import { SQL } from 'bun';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { signBlob } from '../support/evm/chain';
import { deployToken } from '../support/evm/token';
import { startInstances, type Instances } from '../support/instances';
import { activeLeases, Owners, shardOfIntent } from '../support/leases';
import { freshDatabaseUrl } from '../support/postgres';
import { startReceiver, type Receiver } from '../support/receiver';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { BASE_SEPOLIA, type ApiClient } from '../support/server';

const LEASE_SECONDS = 3;
const LIFECYCLE = ['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized'];

let anvil: Anvil;
let sol: LocalSolana;
let usdc: Hex;
let rx: Receiver;
let db: string;
let sql: SQL;
let cluster: Instances;
let key: string;
let owners: Owners;
const payer = privateKeyToAccount(DEV_KEYS[5]);
let solPayer: KeyPairSigner;

beforeAll(async () => {
  [anvil, sol] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startLocalSolana({ slotMs: 40, blockhashValidBlocks: 100_000 })]);
  usdc = await deployToken(anvil, { [payer.address]: 1_000_000_000n });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  solPayer = await generateKeyPairSigner();
  sol.airdrop(solPayer.address, 10_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, solPayer.address, 1_000_000_000n);
  rx = startReceiver();
  db = await freshDatabaseUrl();
  sql = new SQL({ url: db, max: 1 });
  const config = {
    cluster: { leaseSeconds: LEASE_SECONDS },
    networks: {
      [BASE_SEPOLIA]: { rpc: [anvil.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
    },
    // A delivery claimed by the dead instance is free again after leaseMs.
    webhooks: { pollIntervalMs: 200, leaseMs: 5000, timeoutMs: 2000 },
  };
  // One at a time, so that each new `instance:<owner>` heartbeat row names the instance just started.
  cluster = await startInstances({ db, count: 1, config });
  owners = new Owners(sql);
  await owners.addAll(cluster, 3);
  const account = await cluster.account();
  key = account.key;
  await cluster.setEndpoint(account.accountId, 'test', rx.url('/hooks'));
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await sql?.close();
  await rx?.close();
  await Promise.all([anvil?.stop(), sol?.stop()]);
});

describe('kill -9 of the owner of a pending Solana and a pending EVM intent', () => {
  it('another instance takes the shards over and drives both to finalized; every event delivered, at least once', async () => {
    const shardOwners = await owners.settled(3);
    const any = cluster.pick(0).api(key);
    const evm = await create(any, { chain: BASE_SEPOLIA, token: 'USDC', amount: '4.2', requestor: privateKeyToAccount(generatePrivateKey()).address });
    const victim = owners.ownerOfIntent(shardOwners, evm);
    // A Solana intent in a shard of the same instance (each try has about a third of a chance).
    let solId: string | undefined;
    for (let i = 0; i < 40 && !solId; i++) {
      const id = await create(any, { chain: DEVNET_CHAIN, token: 'USDC', amount: '3.1', requestor: (await generateKeyPairSigner()).address });
      if (owners.ownerOfIntent(shardOwners, id) === victim) solId = id;
    }
    expect(solId, 'no Solana intent landed in a shard of the victim in 40 tries').toBeDefined();
    const api = victim.api(key);

    // Hold both chains, then submit through the owner itself: it broadcasts and watches both.
    await anvil.rpc('evm_setAutomine', [false]);
    await anvil.rpc('evm_setIntervalMining', [0]);
    sol.setDropTransactions(true);
    const builtEvm = await api.post(`/v1/intents/${evm}/build`, { fulfiller: payer.address });
    expect(builtEvm.status, JSON.stringify(builtEvm.body)).toBe(200);
    const subEvm = await api.post(`/v1/intents/${evm}/submit`, { signedTransaction: await signBlob(payer, builtEvm.body.transaction.blob) });
    expect(subEvm.status, JSON.stringify(subEvm.body)).toBe(200);
    const builtSol = await api.post(`/v1/intents/${solId}/build`, { fulfiller: solPayer.address });
    expect(builtSol.status, JSON.stringify(builtSol.body)).toBe(200);
    const subSol = await api.post(`/v1/intents/${solId}/submit`, { signedTransaction: await signMessageBlob(builtSol.body.transaction.blob, [solPayer]) });
    expect(subSol.status, JSON.stringify(subSol.body)).toBe(200);
    expect([subEvm.body.intent.state, subSol.body.intent.state]).toEqual(['pending', 'pending']);

    // Still the owner of both shards at the moment of the kill.
    const before = new Map((await activeLeases(sql)).map((r) => [r.name, r]));
    const shards = [shardOfIntent(evm), shardOfIntent(solId!)];
    for (const s of shards) expect(before.get(s)?.owner, `${s} moved before the kill`).toBe(owners.byInstance.get(victim));
    await victim.kill9();

    // Only the new owner's rebroadcast can land them now: the Solana leader stops dropping, and
    // anvil forgets the pending transfer before it mines again.
    await anvil.rpc('anvil_dropAllTransactions', []);
    await anvil.rpc('evm_setIntervalMining', [1]);
    sol.setDropTransactions(false);

    const survivor = cluster.pick(0).api(key);
    await waitFor(intentIn(survivor, evm, 'finalized'), 120_000, `EVM intent finalized after the kill\n${cluster.logs()}`);
    await waitFor(intentIn(survivor, solId!, 'finalized'), 120_000, `Solana intent finalized after the kill\n${cluster.logs()}`);

    // Taken over: a live instance holds both shards now, at a later epoch.
    const after = new Map((await activeLeases(sql)).map((r) => [r.name, r]));
    for (const s of shards) {
      expect(cluster.live().map((i) => owners.byInstance.get(i))).toContain(after.get(s)?.owner);
      expect(after.get(s)!.epoch).toBeGreaterThan(before.get(s)!.epoch);
    }

    for (const id of [evm, solId!]) {
      // One transition each, in order: nobody watched or moved the intent twice.
      const events = await eventsOf(survivor, id);
      expect(events.map((e) => e.type)).toEqual(LIFECYCLE);
      // Every delivery done and recorded (an attempt is recorded after its send returns).
      const deliveries = await waitFor(
        async () => {
          const d = await deliveriesByEvent(survivor);
          return events.every((e) => d.get(e.eventId)?.delivered) ? d : undefined;
        },
        60_000,
        `every event of ${id} delivered`,
      );
      for (const e of events) {
        const got = received(e.eventId);
        const attempts = deliveries.get(e.eventId)!.attempts;
        expect(got, `${e.type} ${e.eventId} never reached the receiver`).toBeGreaterThan(0);
        // The dead instance may have sent one attempt it never recorded; nothing else repeats.
        expect(got, `${e.type} ${e.eventId}: received ${got}, ${attempts} attempts recorded`).toBeLessThanOrEqual(attempts + 1);
      }
      // Those written after the kill were sent by live instances only: once per recorded attempt.
      for (const e of events.filter((x) => x.type === 'intent.confirmed' || x.type === 'intent.finalized')) {
        expect(received(e.eventId), e.type).toBe(deliveries.get(e.eventId)!.attempts);
      }
    }
  }, 300_000);
});

async function create(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const r = await api.post('/v1/intents', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.intent.id as string;
}

function received(eventId: string): number {
  return rx.on('/hooks').filter((r) => r.headers['x-pf-event-id'] === eventId).length;
}

/** Per event: recorded attempts over its deliveries, and whether one was delivered (every page, newest first). */
async function deliveriesByEvent(api: ApiClient): Promise<Map<string, { attempts: number; delivered: boolean }>> {
  const out = new Map<string, { attempts: number; delivered: boolean }>();
  let after = '';
  for (;;) {
    const r = await api.get(`/v1/webhooks?limit=100${after ? `&starting_after=${after}` : ''}`);
    expect(r.status).toBe(200);
    for (const d of r.body.deliveries as Array<{ id: string; eventId: string; attemptCount: number; status: string }>) {
      const seen = out.get(d.eventId) ?? { attempts: 0, delivered: false };
      out.set(d.eventId, { attempts: seen.attempts + d.attemptCount, delivered: seen.delivered || d.status === 'delivered' });
    }
    if (!r.body.hasMore) return out;
    after = r.body.deliveries.at(-1).id;
  }
}
