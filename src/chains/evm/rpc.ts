// JSON-RPC helpers over the shared RpcPool: batched calls and hex quantities.
// Every upstream call of the EVM adapter goes through here or pool.call, never through viem.
import { AppError } from '../../domain/errors';
import type { JsonRpcResponse, RpcPool } from '../../rpc/types';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type RpcOutcome = { ok: true; result: unknown } | { ok: false; code: number; message: string };

/** Upstreams cap batch sizes (often 100 to 1000); stay well under the common limit. */
const MAX_BATCH = 100;

/**
 * Send calls as JSON-RPC batches and return one outcome per call, in order.
 * Per-call JSON-RPC errors are outcomes; a transport failure (rpc.unavailable) throws.
 */
export async function batch(pool: RpcPool, calls: RpcCall[]): Promise<RpcOutcome[]> {
  const out: RpcOutcome[] = [];
  for (let i = 0; i < calls.length; i += MAX_BATCH) {
    const chunk = calls.slice(i, i + MAX_BATCH);
    const payload = chunk.map((c, j) => ({ jsonrpc: '2.0', id: j, method: c.method, params: c.params }));
    const answer = await pool.request(payload);
    if (!Array.isArray(answer)) {
      // A node that refuses batches answers with one error object for the whole payload.
      const err = (answer as JsonRpcResponse | null)?.error;
      throw new AppError('rpc.unavailable', `RPC upstream for ${pool.chain} refused a batch`, {
        details: { chain: pool.chain, message: err?.message ?? 'not a batch answer' },
      });
    }
    const byId = new Map<unknown, JsonRpcResponse>();
    for (const r of answer as JsonRpcResponse[]) byId.set(r?.id, r);
    for (let j = 0; j < chunk.length; j++) {
      const r = byId.get(j);
      if (!r) out.push({ ok: false, code: -32603, message: 'missing from batch answer' });
      else if (r.error) out.push({ ok: false, code: r.error.code, message: r.error.message });
      else out.push({ ok: true, result: r.result });
    }
  }
  return out;
}

export const toHex = (n: bigint | number): `0x${string}` => `0x${n.toString(16)}`;

export function hexToBig(v: unknown): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new Error(`not a hex quantity: ${String(v)}`);
  return v === '0x' ? 0n : BigInt(v);
}

export const hexToNum = (v: unknown): number => Number(hexToBig(v));
