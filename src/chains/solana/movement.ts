// What a landed transaction moved, read from getTransaction's pre/post token balances: net
// change per token account of one mint. "Paid" is judged on this, never on the instructions
// alone (a delegate's self-transfer carries a valid transfer and moves nothing).
import type { RpcTransaction, RpcTokenBalance } from './rpc';

export interface AccountMovement {
  account: string;
  owner: string | undefined;
  /** Net change in base units (post − pre). */
  delta: bigint;
}

/** Every account of the transaction (static keys, then lookup-table writable and read-only ones). */
export function accountKeys(tx: RpcTransaction): string[] {
  const loaded = tx.meta?.loadedAddresses;
  return [...tx.transaction.message.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
}

/** Net movement of `mint` per token account; accounts whose balance did not change are left out. */
export function tokenMovements(tx: RpcTransaction, mint: string): AccountMovement[] {
  const keys = accountKeys(tx);
  const byIndex = new Map<number, { owner: string | undefined; delta: bigint }>();
  const add = (list: RpcTokenBalance[] | null | undefined, sign: bigint) => {
    for (const b of list ?? []) {
      if (b.mint !== mint) continue;
      const cur = byIndex.get(b.accountIndex) ?? { owner: b.owner, delta: 0n };
      cur.delta += sign * BigInt(b.uiTokenAmount.amount);
      cur.owner ??= b.owner;
      byIndex.set(b.accountIndex, cur);
    }
  };
  add(tx.meta?.preTokenBalances, -1n);
  add(tx.meta?.postTokenBalances, 1n);
  return [...byIndex]
    .filter(([, m]) => m.delta !== 0n)
    .map(([index, m]) => ({ account: keys[index] ?? '', owner: m.owner, delta: m.delta }));
}

/** Net credit of `mint` to one token account in this transaction (negative when it was debited). */
export function netCredit(tx: RpcTransaction, mint: string, account: string): bigint {
  return tokenMovements(tx, mint)
    .filter((m) => m.account === account)
    .reduce((sum, m) => sum + m.delta, 0n);
}
