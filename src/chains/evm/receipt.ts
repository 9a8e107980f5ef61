// Reading a receipt: success alone is not payment (a token may return false instead of
// reverting), so a paid receipt also carries the token's Transfer(from, requestor, amount) log.
import { keccak256, toBytes } from 'viem';
import type { ChainIntent } from '../types';
import { sameAddress } from './address';
import { hexToBig, hexToNum } from './rpc';

const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'));

export interface RpcReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  from: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
}

export type ReceiptVerdict =
  | { kind: 'paid'; blockNumber: number; blockHash: string }
  | { kind: 'reverted'; blockNumber: number }
  | { kind: 'no_transfer'; blockNumber: number };

const topicAddress = (t: string | undefined) => (t ? `0x${t.slice(-40)}` : '');

export function readReceipt(r: RpcReceipt, intent: ChainIntent): ReceiptVerdict {
  const blockNumber = hexToNum(r.blockNumber);
  if (hexToBig(r.status) !== 1n) return { kind: 'reverted', blockNumber };
  const paid = r.logs.some(
    (l) =>
      sameAddress(l.address, intent.tokenAddress) &&
      l.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
      sameAddress(topicAddress(l.topics[1]), r.from) &&
      sameAddress(topicAddress(l.topics[2]), intent.requestor) &&
      hexToBig(l.data) === intent.amountBaseUnits,
  );
  return paid ? { kind: 'paid', blockNumber, blockHash: r.blockHash } : { kind: 'no_transfer', blockNumber };
}
