// Network objects and RPC pools for adapter tests, pointing built-in EVM networks at anvil,
// and the fulfiller's side: signing the blob that build returned with a real viem account.
import { parseTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createRpcPool } from '../../../src/rpc/pool';
import { RpcCallError, type RpcPool } from '../../../src/rpc/types';
import type { ChainIntent, Network } from '../../../src/chains/types';

export function baseSepolia(rpc: string[], usdc: string, over: Partial<Network> = {}): Network {
  return {
    chain: 'eip155:84532', family: 'evm', mode: 'test', name: 'Base Sepolia (anvil)',
    evmChainId: 84532, evmFeeModel: 'op-stack', rpc, confirmations: 1,
    pollIntervalMs: 50, rebroadcastIntervalMs: 200,
    tokens: { USDC: { address: usdc, decimals: 6 } },
    ...over,
  };
}

export const ALPHA_USD = '0x20c0000000000000000000000000000000000001';

export function tempoModerato(rpc: string[], over: Partial<Network> = {}): Network {
  return {
    chain: 'eip155:42431', family: 'evm', mode: 'test', name: 'Tempo Moderato (anvil)',
    evmChainId: 42431, evmFeeModel: 'tempo', rpc, confirmations: 1,
    pollIntervalMs: 50, rebroadcastIntervalMs: 200,
    tokens: { AlphaUSD: { address: ALPHA_USD, decimals: 6 } },
    ...over,
  };
}

export function poolFor(network: Network, urls = network.rpc): RpcPool {
  return createRpcPool({ chain: network.chain, urls, timeoutMs: 2_000, breakerFailures: 3, breakerCooldownMs: 60_000, retryAfterSeconds: 2 });
}

let seq = 0;
export function intentFor(network: Network, token: string, o: { requestor: string; fulfiller: string | null; amount: bigint }): ChainIntent {
  const t = network.tokens[token]!;
  return {
    id: `pi_evmtest${++seq}`,
    chain: network.chain,
    token,
    tokenAddress: t.address,
    decimals: t.decimals,
    amountBaseUnits: o.amount,
    requestor: o.requestor,
    fulfiller: o.fulfiller,
  };
}

export const b64ToHex = (b64: string): Hex => `0x${Buffer.from(b64, 'base64').toString('hex')}`;
export const hexToB64 = (hex: Hex): string => Buffer.from(hex.slice(2), 'hex').toString('base64');

/** What a wallet does with the blob: decode the unsigned EIP-1559 tx, sign it unchanged. */
export async function signBlob(account: PrivateKeyAccount, blob: string, change: Partial<TransactionSerializableEIP1559> = {}): Promise<string> {
  const tx = parseTransaction(b64ToHex(blob)) as TransactionSerializableEIP1559;
  return hexToB64(await account.signTransaction({ ...tx, ...change }));
}

/**
 * A pool wrapper that counts what goes through it: requests on the pool itself (failover, sends)
 * and through each pinned view (one node per decision), and the batch sizes.
 */
export interface CountingPool extends RpcPool {
  counted: { pooled: number; pinned: number; pins: number; batches: number[]; methods: string[] };
}

export function countingPool(inner: RpcPool): CountingPool {
  const counted = { pooled: 0, pinned: 0, pins: 0, batches: [] as number[], methods: [] as string[] };
  const note = (p: unknown) => {
    const calls = (Array.isArray(p) ? p : [p]) as Array<{ method: string }>;
    if (Array.isArray(p)) counted.batches.push(p.length);
    counted.methods.push(...calls.map((c) => c.method));
  };
  const pool: CountingPool = {
    chain: inner.chain,
    pinnedTo: null,
    counted,
    request: (p) => {
      counted.pooled += 1;
      note(p);
      return inner.request(p);
    },
    call: (m, p) => pool.request({ jsonrpc: '2.0', id: 1, method: m, params: p ?? [] }).then(unwrap) as never,
    status: () => inner.status(),
    pin: () => {
      counted.pins += 1;
      const node = inner.pin();
      const view: RpcPool = {
        chain: inner.chain,
        pinnedTo: node.pinnedTo,
        request: (p) => {
          counted.pinned += 1;
          note(p);
          return node.request(p);
        },
        call: (m, p) => view.request({ jsonrpc: '2.0', id: 1, method: m, params: p ?? [] }).then(unwrap) as never,
        status: () => inner.status(),
        pin: () => view,
      };
      return view;
    },
  };
  return pool;
}

function unwrap(a: unknown): unknown {
  const r = a as { result?: unknown; error?: { code: number; message: string } };
  if (r.error) throw new RpcCallError(r.error.code, r.error.message);
  return r.result;
}
