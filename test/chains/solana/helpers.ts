// Shared pieces of the Solana adapter tests: intents, observation collection, waiting.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { ChainIntent, ChainObservation } from '../../../src/chains/types';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../../support/solana/local-solana';

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
