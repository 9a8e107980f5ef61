// Shared pieces of the Solana adapter tests: the local cluster per test file, intents, observation collection, waiting.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { solanaAdapter } from '../../../src/chains/solana/adapter';
import type { ChainIntent, ChainObservation, Network, Watcher } from '../../../src/chains/types';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../../support/solana/local-solana';
import { localNetwork, localPool } from '../../support/solana/network';

export interface LocalCluster {
  sol: LocalSolana;
  network: Network;
  rpc: RpcPool;
}

/**
 * A local cluster (20 ms slots, the devnet USDC mint) for the calling test file: started before all
 * tests and handed to `ready`; after each test its watchers are stopped and the cluster put back
 * (delivering, healthy, running, no unexpected calls); stopped after all.
 */
export function useLocalCluster(opts: { blockhashValidBlocks: number; statusCacheSlots?: number }, ready: (c: LocalCluster) => void) {
  let c: LocalCluster;
  const watchers: Watcher[] = [];

  beforeAll(async () => {
    const sol = await startLocalSolana({ slotMs: 20, confirmedLag: 2, finalizedLag: 6, ...opts });
    sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
    c = { sol, network: localNetwork([sol.url]), rpc: localPool([sol.url]) };
    ready(c);
  });

  afterEach(async () => {
    await Promise.all(watchers.splice(0).map((w) => w.stop()));
    c.sol.setDropTransactions(false);
    await c.sol.setHealth('ok');
    c.sol.chain.resume();
    c.sol.assertNoUnexpectedCalls();
  });

  afterAll(async () => {
    await c.sol.stop();
  });

  return {
    /** A watcher on the cluster (or on `pool`, `net`), stopped after the test. */
    watcher(report: Parameters<typeof solanaAdapter.createWatcher>[2], pool = c.rpc, net = c.network): Watcher {
      const w = solanaAdapter.createWatcher(net, pool, report);
      watchers.push(w);
      return w;
    },
  };
}

let n = 0;
export function intentFor(requestor: string, fulfiller: string | null, amountBaseUnits: bigint, over: Partial<ChainIntent> = {}): ChainIntent {
  n += 1;
  return {
    id: `pi_test${n.toString().padStart(20, '0')}`,
    chain: DEVNET_CHAIN,
    token: 'USDC',
    tokenAddress: DEVNET_USDC_MINT,
    decimals: 6,
    amountBaseUnits,
    requestor,
    fulfiller,
    ...over,
  };
}

/** A fulfiller with 1 SOL and `usdc` base units in its USDC account, and a fresh requestor. */
export async function parties(sol: LocalSolana, usdc: bigint): Promise<{ fulfiller: KeyPairSigner; requestor: KeyPairSigner }> {
  const fulfiller = await generateKeyPairSigner();
  const requestor = await generateKeyPairSigner();
  sol.airdrop(fulfiller.address, 1_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, usdc);
  return { fulfiller, requestor };
}

export function collector() {
  const seen: ChainObservation[] = [];
  return {
    seen,
    report: (o: ChainObservation) => {
      seen.push(o);
    },
    types: (intentId?: string) => seen.filter((o) => intentId === undefined || o.intentId === intentId).map((o) => o.type),
  };
}

export async function waitUntil(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection, got a result');
}
