// The one call every EVM intent pays with: token.transfer(requestor, amount). Encoding for build,
// and the comparison that verify and the watcher's replacement check share.
import { decodeFunctionData, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import type { ChainIntent, Network } from '../types';
import { sameAddress } from './address';
import { chainIdOf } from './network';

export function encodeTransfer(to: string, amount: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] });
}

export interface TxFacts {
  chainId: number | undefined;
  to: string | null | undefined;
  data: Hex | undefined;
  value: bigint | undefined;
  signer: string;
}

export interface Mismatch {
  field: 'chainId' | 'token' | 'function' | 'recipient' | 'amount' | 'value' | 'signer';
  expected: string;
  actual: string;
}

function decodeTransfer(data: Hex | undefined): { to: string; amount: bigint } | null {
  if (!data) return null;
  try {
    const d = decodeFunctionData({ abi: erc20Abi, data });
    if (d.functionName !== 'transfer') return null;
    const [to, amount] = d.args as readonly [string, bigint];
    return { to, amount };
  } catch {
    return null;
  }
}

/** Everything about a transaction that does not pay this intent from its fulfiller; empty = it pays. */
export function transferMismatches(network: Network, intent: ChainIntent, tx: TxFacts): Mismatch[] {
  const out: Mismatch[] = [];
  const expectedChain = String(chainIdOf(network));
  if (String(tx.chainId) !== expectedChain) out.push({ field: 'chainId', expected: expectedChain, actual: String(tx.chainId) });
  if (!tx.to || !sameAddress(tx.to, intent.tokenAddress)) {
    out.push({ field: 'token', expected: intent.tokenAddress, actual: String(tx.to ?? null) });
  }
  const call = decodeTransfer(tx.data);
  if (!call) {
    out.push({ field: 'function', expected: 'transfer(address,uint256)', actual: (tx.data ?? '0x').slice(0, 10) });
  } else {
    if (!sameAddress(call.to, intent.requestor)) out.push({ field: 'recipient', expected: intent.requestor, actual: call.to });
    if (call.amount !== intent.amountBaseUnits) {
      out.push({ field: 'amount', expected: intent.amountBaseUnits.toString(), actual: call.amount.toString() });
    }
  }
  // Native value on a token call would be lost to the token contract (or revert).
  if ((tx.value ?? 0n) !== 0n) out.push({ field: 'value', expected: '0', actual: String(tx.value) });
  if (intent.fulfiller !== null && !sameAddress(tx.signer, intent.fulfiller)) {
    out.push({ field: 'signer', expected: intent.fulfiller, actual: tx.signer });
  } else if (sameAddress(tx.signer, intent.requestor)) {
    // The requestor paying itself moves no money, though its Transfer log names it as both ends.
    out.push({ field: 'signer', expected: 'a wallet other than the requestor', actual: tx.signer });
  }
  return out;
}
