// Which transaction used a sender's nonce: the account nonce only grows, so a binary search over
// eth_getTransactionCount at past blocks finds the block, and that block names the transaction.
import type { Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import { sameAddress } from './address';
import { hexToBig, hexToNum, toHex } from './rpc';

export interface NonceTaker {
  hash: Hex;
  blockNumber: number;
  chainId: number | undefined;
  to: string | null;
  data: Hex;
  value: bigint;
}

interface RpcTx {
  hash: Hex;
  from: string;
  nonce: string;
  to: string | null;
  input: Hex;
  value: string;
  chainId?: string;
}

/**
 * The transaction from `from` with `nonce`, mined at or before `head`; null while the nonce is
 * still unused at `head`. `lowHint` is a block where the nonce was known unused (a guess is fine).
 */
export async function findNonceTaker(rpc: RpcPool, from: string, nonce: number, lowHint: number, head: number): Promise<NonceTaker | null> {
  const used = async (block: number) =>
    hexToNum(await rpc.call('eth_getTransactionCount', [from, toHex(block)])) > nonce;
  if (!(await used(head))) return null;
  let hi = head;
  let lo = Math.min(Math.max(0, lowHint), head - 1);
  // A wrong hint (boot after a long pause) widens the window downwards until the nonce is unused.
  for (let span = Math.max(1, hi - lo); lo > 0 && (await used(lo)); span *= 2) {
    hi = lo;
    lo = Math.max(0, lo - span);
  }
  if (lo === 0 && hi > 0 && (await used(0))) return null;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (await used(mid)) hi = mid;
    else lo = mid;
  }
  const block = await rpc.call<{ transactions: RpcTx[] } | null>('eth_getBlockByNumber', [toHex(hi), true]);
  const tx = block?.transactions.find((t) => sameAddress(t.from, from) && hexToNum(t.nonce) === nonce);
  if (!tx) return null;
  return {
    hash: tx.hash,
    blockNumber: hi,
    chainId: tx.chainId === undefined ? undefined : hexToNum(tx.chainId),
    to: tx.to,
    data: tx.input,
    value: hexToBig(tx.value),
  };
}
