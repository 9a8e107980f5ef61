// JSON-RPC 2.0 over HTTP for a LocalChain: exactly the methods PayForge calls, with real-node
// response shapes. Unknown methods answer -32601 and are recorded; every call is counted.
import { address } from '@solana/kit';
import { getTokenDecoder } from '@solana-program/token';
import { FULL_VIEW, PreflightError, type Commitment, type LocalChain, type NodeView } from './chain';

type Params = unknown[];
type Handler = (params: Params) => unknown;

export class RpcError extends Error {
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

/**
 * minContextSlot as a node enforces it: the bank at the asked commitment must have reached that
 * slot, else -32016 (the caller asked a node that is behind what it already saw).
 */
export function requireContextSlot(chain: LocalChain, view: Readonly<NodeView>, cfg: unknown): void {
  const min = (cfg as { minContextSlot?: unknown } | undefined)?.minContextSlot;
  if (typeof min !== 'number') return;
  const contextSlot = chain.slotAt(commitmentOf(cfg), view.lagBlocks);
  if (contextSlot < min) throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot });
}

/** The methods as node `view` serves them (behind the tip by view.lagBlocks, ledger from view.firstAvailableSlot). */
export function createHandlers(chain: LocalChain, view: Readonly<NodeView> = FULL_VIEW): Record<string, Handler> {
  const ctx = (c: Commitment = 'processed') => ({ context: { slot: chain.slotAt(c, view.lagBlocks) } });
  /** Wrap a handler whose config (at `at` in params) may carry minContextSlot. */
  const atLeast = (at: number, h: Handler): Handler => (params) => {
    requireContextSlot(chain, view, params[at]);
    return h(params);
  };

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
    getSlot: atLeast(0, ([cfg]) => chain.slotAt(commitmentOf(cfg), view.lagBlocks)),
    getBlockHeight: atLeast(0, ([cfg]) => chain.heightAt(commitmentOf(cfg), view.lagBlocks)),
    getLatestBlockhash: atLeast(0, ([cfg]) => ({ ...ctx(commitmentOf(cfg)), value: chain.latestBlockhash(commitmentOf(cfg), view.lagBlocks) })),
    isBlockhashValid: atLeast(1, ([hash, cfg]) => ({
      ...ctx(commitmentOf(cfg)),
      value: chain.isBlockhashValid(String(hash), chain.heightAt(commitmentOf(cfg), view.lagBlocks)),
    })),
    // The lowest slot of this node's ledger: a history search finds nothing older.
    getFirstAvailableBlock: () => view.firstAvailableSlot,
    minimumLedgerSlot: () => view.firstAvailableSlot,
    getMinimumBalanceForRentExemption: ([size]) => Number(chain.svm.minimumBalanceForRentExemption(BigInt(Number(size)))),
    getBalance: ([addr, cfg]) => ({ ...ctx(commitmentOf(cfg)), value: Number(chain.svm.getBalance(address(asAddress(addr))) ?? 0n) }),
    getAccountInfo: atLeast(1, ([addr, cfg]) => {
      requireBase64(cfg);
      return { ...ctx(commitmentOf(cfg)), value: encodeAccount(asAddress(addr)) };
    }),
    getMultipleAccounts: atLeast(1, ([addrs, cfg]) => {
      requireBase64(cfg);
      if (!Array.isArray(addrs) || addrs.length > 100) throw new RpcError(-32602, 'Too many inputs provided; max 100');
      return { ...ctx(commitmentOf(cfg)), value: addrs.map((a) => encodeAccount(asAddress(a))) };
    }),
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
      return { ...ctx(), value: sigs.map((s) => chain.status(String(s), search, view)) };
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
