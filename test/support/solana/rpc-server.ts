// JSON-RPC 2.0 over HTTP for a LocalChain: exactly the methods PayForge calls, with real-node
// response shapes. Unknown methods answer -32601 and are recorded; every call is counted.
import { address } from '@solana/kit';
import { getTokenDecoder } from '@solana-program/token';
import { PreflightError, type Commitment, type LocalChain } from './chain';

type Params = unknown[];
type Handler = (params: Params) => unknown;

class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

const commitmentOf = (cfg: unknown): Commitment => {
  const c = (cfg as { commitment?: Commitment } | undefined)?.commitment;
  return c ?? 'finalized';
};

export interface RpcCounters {
  calls: Record<string, number>;
  unexpected: string[];
}

export function createHandlers(chain: LocalChain): Record<string, Handler> {
  const ctx = (c: Commitment = 'processed') => ({ context: { slot: chain.slotAt(c) } });

  const encodeAccount = (addr: string) => {
    const a = chain.svm.getAccount(address(addr));
    if (!a.exists) return null;
    return {
      data: [Buffer.from(a.data).toString('base64'), 'base64'],
      executable: a.executable,
      lamports: Number(a.lamports),
      owner: a.programAddress,
      rentEpoch: 0,
      space: a.data.length,
    };
  };
  const requireBase64 = (cfg: unknown) => {
    const enc = (cfg as { encoding?: string } | undefined)?.encoding ?? 'base64';
    if (enc !== 'base64') throw new RpcError(-32602, `local solana: only base64 account encoding is served, got ${enc}`);
  };
  const asAddress = (v: unknown): string => {
    try {
      return address(String(v));
    } catch {
      throw new RpcError(-32602, `Invalid param: Invalid`);
    }
  };

  return {
    getHealth: () => 'ok',
    getSlot: ([cfg]) => chain.slotAt(commitmentOf(cfg)),
    getBlockHeight: ([cfg]) => chain.heightAt(commitmentOf(cfg)),
    getLatestBlockhash: ([cfg]) => ({ ...ctx(commitmentOf(cfg)), value: chain.latestBlockhash(commitmentOf(cfg)) }),
    isBlockhashValid: ([hash, cfg]) => ({ ...ctx(commitmentOf(cfg)), value: chain.isBlockhashValid(String(hash)) }),
    getMinimumBalanceForRentExemption: ([size]) => Number(chain.svm.minimumBalanceForRentExemption(BigInt(Number(size)))),
    getBalance: ([addr, cfg]) => ({ ...ctx(commitmentOf(cfg)), value: Number(chain.svm.getBalance(address(asAddress(addr))) ?? 0n) }),
    getAccountInfo: ([addr, cfg]) => {
      requireBase64(cfg);
      return { ...ctx(commitmentOf(cfg)), value: encodeAccount(asAddress(addr)) };
    },
    getMultipleAccounts: ([addrs, cfg]) => {
      requireBase64(cfg);
      if (!Array.isArray(addrs) || addrs.length > 100) throw new RpcError(-32602, 'Too many inputs provided; max 100');
      return { ...ctx(commitmentOf(cfg)), value: addrs.map((a) => encodeAccount(asAddress(a))) };
    },
    getTokenAccountBalance: ([addr, cfg]) => {
      const a = chain.svm.getAccount(address(asAddress(addr)));
      if (!a.exists) throw new RpcError(-32602, 'Invalid param: could not find account');
      const t = getTokenDecoder().decode(a.data);
      const mint = chain.svm.getAccount(t.mint);
      const decimals = mint.exists ? mint.data[44]! : 0;
      const amount = t.amount.toString();
      const ui = (Number(t.amount) / 10 ** decimals).toString();
      return { ...ctx(commitmentOf(cfg)), value: { amount, decimals, uiAmount: Number(ui), uiAmountString: ui } };
    },
    getFeeForMessage: ([msg, cfg]) => {
      const bytes = new Uint8Array(Buffer.from(String(msg), 'base64'));
      let value: number | null;
      try {
        value = chain.feeForMessage(bytes);
      } catch {
        throw new RpcError(-32602, 'Invalid param: unable to decode message');
      }
      return { ...ctx(commitmentOf(cfg)), value };
    },
    getSignatureStatuses: ([sigs, cfg]) => {
      if (!Array.isArray(sigs)) throw new RpcError(-32602, 'Invalid params');
      if (sigs.length > 256) throw new RpcError(-32602, 'Too many inputs provided; max 256');
      const search = (cfg as { searchTransactionHistory?: boolean } | undefined)?.searchTransactionHistory === true;
      return { ...ctx(), value: sigs.map((s) => chain.status(String(s), search)) };
    },
    sendTransaction: ([wire, cfg]) => {
      const c = (cfg ?? {}) as { encoding?: string; skipPreflight?: boolean };
      const enc = c.encoding ?? 'base58';
      if (enc !== 'base64') throw new RpcError(-32602, `local solana: only base64 transactions are served, got ${enc}`);
      const bytes = new Uint8Array(Buffer.from(String(wire), 'base64'));
      try {
        return chain.send(bytes, c.skipPreflight === true);
      } catch (e) {
        if (e instanceof PreflightError) {
          const code = e.err === 'SignatureFailure' ? -32003 : -32002;
          const message = code === -32003 ? 'Transaction signature verification failure' : e.message;
          throw new RpcError(code, message, { err: e.err, logs: e.logs, accounts: null, unitsConsumed: 0 });
        }
        throw new RpcError(-32602, `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
      }
    },
  };
}

/** Answer one JSON-RPC request object, counting it. */
export function dispatch(handlers: Record<string, Handler>, counters: RpcCounters, req: unknown): unknown {
  const r = req as { id?: unknown; method?: unknown; params?: unknown };
  const id = r?.id ?? null;
  const method = typeof r?.method === 'string' ? r.method : '<none>';
  counters.calls[method] = (counters.calls[method] ?? 0) + 1;
  const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  if (!handler) {
    counters.unexpected.push(method);
    return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
  }
  try {
    return { jsonrpc: '2.0', id, result: handler(Array.isArray(r.params) ? r.params : []) };
  } catch (e) {
    if (e instanceof RpcError) {
      return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
    }
    return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(e as Error).message}` } };
  }
}
