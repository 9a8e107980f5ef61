// Fee quote per fee model: EIP-1559 caps for the transaction, and the estimate shown to the payer.
// Base (op-stack) adds the L1 data fee that estimateGas leaves out; Tempo charges in the TIP-20 token.
import { decodeFunctionResult, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { formatAmount } from '../../domain/money';
import type { RpcPool } from '../../rpc/types';
import { RpcCallError } from '../../rpc/types';
import type { Network } from '../types';

/** The OP Stack GasPriceOracle predeploy; absent (no code) on plain anvil. */
export const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const oracleAbi = parseAbi(['function getL1Fee(bytes _data) view returns (uint256)']);

/** Tempo prices gas in attodollars (1e-18 USD); TIP-20 USD tokens count 1e-6 USD per unit. */
const ATTODOLLAR_DECIMALS = 18;

export function feeCaps(baseFeePerGas: bigint, priorityFee: bigint): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  // Twice the base fee survives several full blocks of base-fee growth before the tx stalls.
  return { maxFeePerGas: baseFeePerGas * 2n + priorityFee, maxPriorityFeePerGas: priorityFee };
}

/** L1 data fee in wei for the unsigned serialized transaction; 0 where the predeploy has no code. */
export async function l1DataFee(rpc: RpcPool, unsignedTx: Hex): Promise<bigint> {
  const data = encodeFunctionData({ abi: oracleAbi, functionName: 'getL1Fee', args: [unsignedTx] });
  try {
    const out = await rpc.call<Hex>('eth_call', [{ to: GAS_PRICE_ORACLE, data }, 'latest']);
    if (!out || out === '0x') return 0n;
    return decodeFunctionResult({ abi: oracleAbi, functionName: 'getL1Fee', data: out });
  } catch (e) {
    // The estimate is informational: a node refusing the call must not block the payment.
    if (e instanceof RpcCallError) return 0n;
    throw e;
  }
}

export interface FeeEstimate {
  estimatedFeeEth: string | null;
  estimatedFeeUsdc: string | null;
}

/** Expected fee for `gas` units at base fee + tip, in the unit the network charges. */
export function estimateFee(
  network: Network,
  gas: bigint,
  pricePerGas: bigint,
  l1FeeWei: bigint,
  tokenDecimals: number,
): FeeEstimate {
  const l2 = gas * pricePerGas;
  if (network.evmFeeModel === 'tempo') {
    const scale = 10n ** BigInt(ATTODOLLAR_DECIMALS - tokenDecimals);
    // Tempo rounds the charged fee up: ceil(gas * price / 10^12) for 6-decimal tokens.
    const units = (l2 + scale - 1n) / scale;
    return { estimatedFeeEth: null, estimatedFeeUsdc: formatAmount(units, tokenDecimals) };
  }
  const l1 = network.evmFeeModel === 'op-stack' ? l1FeeWei : 0n;
  return { estimatedFeeEth: formatAmount(l2 + l1, 18), estimatedFeeUsdc: null };
}
