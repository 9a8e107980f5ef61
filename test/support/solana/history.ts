// Transaction history for the local Solana: getSignaturesForAddress and getTransaction (json)
// with real-node shapes, recorded around LiteSVM's own execution of every landed transaction
// (static account keys, SPL token balances before and after, slot, block time). Used by the
// payment detector, which finds transfers whoever sent them.
import { address, getBase58Decoder, getCompiledTransactionMessageDecoder, type Transaction } from '@solana/kit';
import { getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { FULL_VIEW, type Commitment, type LocalChain, type NodeView } from './chain';
import { requireContextSlot } from './rpc-server';

interface Balance {
  accountIndex: number;
  mint: string;
  owner: string;
  amount: bigint;
  decimals: number;
}

interface Recorded {
  signature: string;
  keys: string[];
  blockhash: string;
  pre: Balance[];
  post: Balance[];
  blockTime: number;
}

type Handler = (params: unknown[]) => unknown;

/**
 * Wrap the chain's LiteSVM so every executed transaction is recorded; returns the extra RPC
 * handlers as a node with view `view` serves them (its ledger starts at view.firstAvailableSlot).
 */
export function createHistory(chain: LocalChain): (view?: Readonly<NodeView>) => Record<string, Handler> {
  const recorded = new Map<string, Recorded>();
  const byAddress = new Map<string, string[]>(); // address -> signatures, oldest first
  const svm = chain.svm;
  const send = svm.sendTransaction.bind(svm);

  const balances = (keys: string[]): Balance[] => {
    const out: Balance[] = [];
    keys.forEach((k, accountIndex) => {
      const a = svm.getAccount(address(k));
      if (!a.exists || a.programAddress !== TOKEN_PROGRAM_ADDRESS || a.data.length !== 165) return;
      const t = getTokenDecoder().decode(a.data);
      const mint = svm.getAccount(t.mint);
      out.push({ accountIndex, mint: t.mint, owner: t.owner, amount: t.amount, decimals: mint.exists ? mint.data[44]! : 0 });
    });
    return out;
  };

  svm.sendTransaction = ((tx: Transaction) => {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as { staticAccounts: string[]; lifetimeToken: string };
    const keys = message.staticAccounts.map(String);
    const first = tx.signatures[keys[0] as never];
    const pre = balances(keys);
    const r = send(tx);
    if (first) {
      const signature = getBase58Decoder().decode(first);
      recorded.set(signature, { signature, keys, blockhash: message.lifetimeToken, pre, post: balances(keys), blockTime: Math.floor(Date.now() / 1000) });
      for (const k of keys) byAddress.set(k, [...(byAddress.get(k) ?? []), signature]);
    }
    return r;
  }) as typeof svm.sendTransaction;

  const commitmentOf = (cfg: unknown): Commitment => (cfg as { commitment?: Commitment } | undefined)?.commitment ?? 'finalized';
  /** A landed transaction in this node's ledger, visible at commitment `c` (the chain's own status model decides). */
  const visible = (sig: string, c: Commitment, view: Readonly<NodeView>) => {
    const st = chain.status(sig, true, view);
    if (!st || st.slot < view.firstAvailableSlot) return null;
    const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
    return rank[st.confirmationStatus] >= rank[c] ? st : null;
  };
  const wire = (b: Balance) => ({
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: TOKEN_PROGRAM_ADDRESS,
    uiTokenAmount: { amount: b.amount.toString(), decimals: b.decimals, uiAmount: Number(b.amount) / 10 ** b.decimals, uiAmountString: String(Number(b.amount) / 10 ** b.decimals) },
  });

  return (view = FULL_VIEW) => ({
    getSignaturesForAddress: ([addr, cfg]) => {
      const c = (cfg ?? {}) as { commitment?: Commitment; limit?: number; until?: string; before?: string };
      if (c.commitment === 'processed') throw Object.assign(new Error('Method does not support commitment below `confirmed`'), { code: -32602 });
      requireContextSlot(chain, view, cfg);
      const out: unknown[] = [];
      const sigs = [...(byAddress.get(String(addr)) ?? [])].reverse(); // newest first
      // `before`: start searching backwards from this signature (exclusive), as the real RPC pages.
      const start = c.before === undefined ? 0 : sigs.indexOf(c.before) + 1;
      if (c.before !== undefined && start === 0) return out;
      for (const sig of sigs.slice(start)) {
        if (sig === c.until) break;
        const st = visible(sig, commitmentOf(cfg), view);
        if (!st) continue;
        out.push({ signature: sig, slot: st.slot, err: st.err, memo: null, blockTime: recorded.get(sig)!.blockTime, confirmationStatus: st.confirmationStatus });
        if (out.length >= (c.limit ?? 1000)) break;
      }
      return out;
    },
    getTransaction: ([sig, cfg]) => {
      const c = (cfg ?? {}) as { encoding?: string; maxSupportedTransactionVersion?: number };
      if ((c.encoding ?? 'json') !== 'json') throw new Error('local solana: only json transaction encoding is served');
      const st = visible(String(sig), commitmentOf(cfg), view);
      const t = recorded.get(String(sig));
      if (!st || !t) return null;
      if (c.maxSupportedTransactionVersion === undefined) throw new Error('Transaction version (0) is not supported by the requesting client');
      return {
        slot: st.slot,
        blockTime: t.blockTime,
        version: 0,
        meta: {
          err: st.err,
          status: st.err === null ? { Ok: null } : { Err: st.err },
          fee: 5000,
          preBalances: [],
          postBalances: [],
          preTokenBalances: t.pre.map(wire),
          postTokenBalances: t.post.map(wire),
          innerInstructions: [],
          logMessages: [],
          loadedAddresses: { writable: [], readonly: [] },
          rewards: [],
        },
        transaction: { signatures: [t.signature], message: { accountKeys: t.keys, recentBlockhash: t.blockhash, instructions: [], addressTableLookups: [] } },
      };
    },
  });
}
