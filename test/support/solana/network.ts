// A devnet Network record and an RpcPool pointed at local Solana servers, with short timings for tests.
import type { Network } from '../../../src/chains/types';
import { createRpcPool } from '../../../src/rpc/pool';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_CHAIN, DEVNET_USDC_MINT } from './local-solana';

export function localNetwork(urls: string[], over: Partial<Network> = {}): Network {
  return {
    chain: DEVNET_CHAIN,
    family: 'solana',
    mode: 'test',
    name: 'Solana devnet (local)',
    rpc: urls,
    confirmations: 1,
    pollIntervalMs: 50,
    rebroadcastIntervalMs: 200,
    tokens: { USDC: { address: DEVNET_USDC_MINT, decimals: 6 } },
    ...over,
  };
}

export function localPool(urls: string[], over: { timeoutMs?: number; retryAfterSeconds?: number } = {}): RpcPool {
  return createRpcPool({
    chain: DEVNET_CHAIN,
    urls,
    timeoutMs: over.timeoutMs ?? 2000,
    breakerFailures: 3,
    breakerCooldownMs: 1000,
    retryAfterSeconds: over.retryAfterSeconds ?? 2,
  });
}
