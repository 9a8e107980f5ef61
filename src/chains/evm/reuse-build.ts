// Idempotent build (contract 14): while the nonce of the intent's last build is unused and the
// fulfiller is the same, build answers the very same unsigned transaction, rebuilt byte for byte
// from the stored facts. A new nonce would be a second, independently landable payment.
import { serializeTransaction, type Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import type { BuildResult, ChainIntent, Network } from '../types';
import { isValidAddress, normalizeAddress, sameAddress } from './address';
import { resultOf, type EvmBuildData } from './build';
import { chainIdOf } from './network';
import { hexToNum } from './rpc';
import { encodeTransfer } from './transfer';

const DECIMAL = /^\d+$/;

/** The stored facts of an EVM build, or null for anything else (another family, an older shape). */
function readBuildData(d: Record<string, unknown> | null): EvmBuildData | null {
  if (!d) return null;
  const { from, nonce, chainId } = d;
  const amounts = ['gas', 'gasEstimate', 'maxFeePerGas', 'maxPriorityFeePerGas', 'baseFeePerGas', 'l1FeeWei'] as const;
  if (typeof from !== 'string' || !isValidAddress(from)) return null;
  if (!Number.isSafeInteger(nonce) || (nonce as number) < 0 || !Number.isSafeInteger(chainId)) return null;
  if (!amounts.every((k) => typeof d[k] === 'string' && DECIMAL.test(d[k] as string))) return null;
  return d as unknown as EvmBuildData;
}

export async function reuseTransfer(
  network: Network,
  rpc: RpcPool,
  intent: ChainIntent,
  fulfiller: string,
  stored: Record<string, unknown> | null,
): Promise<BuildResult | null> {
  const d = readBuildData(stored);
  if (!d || !isValidAddress(fulfiller) || !sameAddress(d.from, fulfiller) || d.chainId !== chainIdOf(network)) return null;
  // Mined nonces only: a pending transaction at this nonce is ours or a replacement race that
  // the same bytes settle either way; a new nonce would let two payments land.
  const used = hexToNum(await rpc.call('eth_getTransactionCount', [d.from, 'latest']));
  if (used > d.nonce) return null;
  const unsigned = serializeTransaction({
    type: 'eip1559',
    chainId: d.chainId,
    nonce: d.nonce,
    to: normalizeAddress(intent.tokenAddress) as Hex,
    data: encodeTransfer(normalizeAddress(intent.requestor), intent.amountBaseUnits),
    value: 0n,
    gas: BigInt(d.gas),
    maxFeePerGas: BigInt(d.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(d.maxPriorityFeePerGas),
  });
  return resultOf(network, intent, unsigned, d);
}
