// build: the unsigned EIP-1559 token.transfer(requestor, amount) for the fulfiller to sign,
// with nonce, gas and fee caps filled from the chain, plus the fee estimate shown to the payer.
import { serializeTransaction, type Hex } from 'viem';
import { AppError, invalidParam } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { BuildResult, ChainIntent, Network } from '../types';
import { isValidAddress, normalizeAddress } from './address';
import { hexToBase64 } from './codec';
import { estimateFee, feeCaps, l1DataFee } from './fees';
import { chainIdOf } from './network';
import { batch, hexToBig, hexToNum, type RpcOutcome } from './rpc';
import { encodeTransfer } from './transfer';

/** estimateGas is exact for the state it ran on; a margin absorbs state changes before inclusion. */
const GAS_MARGIN_PERCENT = 125n;

/** What an EVM build stores with the intent: enough to rebuild the very same unsigned bytes. */
export interface EvmBuildData {
  from: string;
  nonce: number;
  chainId: number;
  gas: string;
  gasEstimate: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  baseFeePerGas: string;
  l1FeeWei: string;
}

export type BuildInput = { network: Network; rpc: RpcPool; intent: ChainIntent; fulfiller: string };

function need(o: RpcOutcome, what: string, chain: string): unknown {
  if (o.ok) return o.result;
  // The node answered but could not serve basic state: treat it as an unusable upstream.
  throw new AppError('rpc.unavailable', `RPC upstream for ${chain} failed ${what}: ${o.message}`, {
    details: { chain, method: what, rpc_code: o.code, rpc_message: o.message },
  });
}

export async function buildTransfer({ network, rpc, intent, fulfiller }: BuildInput): Promise<BuildResult> {
  if (!isValidAddress(fulfiller)) throw invalidParam('fulfiller', 'fulfiller is not an EVM address (0x + 40 hex)');
  const from = normalizeAddress(fulfiller);
  const to = normalizeAddress(intent.tokenAddress);
  const data = encodeTransfer(normalizeAddress(intent.requestor), intent.amountBaseUnits);
  const chainId = chainIdOf(network);
  const tempo = network.evmFeeModel === 'tempo';

  const [nonceO, gasO, blockO, tipO, codeO, balanceO] = await batch(rpc, [
    { method: 'eth_getTransactionCount', params: [from, 'pending'] },
    { method: 'eth_estimateGas', params: [{ from, to, data }] },
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    { method: 'eth_maxPriorityFeePerGas', params: [] },
    { method: 'eth_getCode', params: [to, 'latest'] },
    // Tempo has no native gas token: its eth_getBalance is a placeholder, so it is not asked.
    ...(tempo ? [] : [{ method: 'eth_getBalance', params: [from, 'latest'] }]),
  ]) as [RpcOutcome, RpcOutcome, RpcOutcome, RpcOutcome, RpcOutcome, RpcOutcome | undefined];

  const code = need(codeO, 'eth_getCode', network.chain);
  if (code === '0x' || code === null) {
    // A call to an address without code "succeeds" and moves nothing: never let it pay an intent.
    throw new AppError('token.unsupported_program', `Token ${intent.token} has no contract at ${to} on ${network.chain}`, {
      details: { chain: network.chain, token: intent.token, tokenAddress: to },
    });
  }
  if (!gasO.ok) {
    throw new AppError('transaction.rejected', `The node refused to estimate the transfer: ${gasO.message}`, {
      details: { stage: 'estimateGas', rpc_code: gasO.code, rpc_message: gasO.message, from },
    });
  }
  const nonce = hexToNum(need(nonceO, 'eth_getTransactionCount', network.chain));
  const block = need(blockO, 'eth_getBlockByNumber', network.chain) as { baseFeePerGas?: string } | null;
  const baseFee = block?.baseFeePerGas ? hexToBig(block.baseFeePerGas) : 0n;
  // Nodes without eth_maxPriorityFeePerGas still include tip-less transactions on quiet chains.
  const tip = tipO.ok ? hexToBig(tipO.result) : 0n;
  const gasEstimate = hexToBig(gasO.result);
  const gas = (gasEstimate * GAS_MARGIN_PERCENT + 99n) / 100n;
  const { maxFeePerGas, maxPriorityFeePerGas } = feeCaps(baseFee, tip);

  const unsigned = serializeTransaction({
    type: 'eip1559', chainId, nonce, to: to as Hex, data, value: 0n, gas, maxFeePerGas, maxPriorityFeePerGas,
  });
  const l1Fee = network.evmFeeModel === 'op-stack' ? await l1DataFee(rpc, unsigned) : 0n;

  if (balanceO) {
    const balance = hexToBig(need(balanceO, 'eth_getBalance', network.chain));
    const worstCase = gas * maxFeePerGas + l1Fee;
    if (balance < worstCase) {
      throw new AppError('transaction.rejected', `Fulfiller ${from} lacks native balance for gas`, {
        details: { stage: 'balance', from, balance_wei: balance.toString(), required_wei: worstCase.toString() },
      });
    }
  }

  return resultOf(network, intent, unsigned, {
    from,
    nonce,
    chainId,
    gas: gas.toString(),
    gasEstimate: gasEstimate.toString(),
    maxFeePerGas: maxFeePerGas.toString(),
    maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
    baseFeePerGas: baseFee.toString(),
    l1FeeWei: l1Fee.toString(),
  });
}

/** The build answer for an unsigned transaction and its stored facts (fresh build and reuse alike). */
export function resultOf(network: Network, intent: ChainIntent, unsigned: Hex, buildData: EvmBuildData): BuildResult {
  const price = BigInt(buildData.baseFeePerGas) + BigInt(buildData.maxPriorityFeePerGas);
  const fee = estimateFee(network, BigInt(buildData.gasEstimate), price, BigInt(buildData.l1FeeWei), intent.decimals);
  return {
    transaction: { blob: hexToBase64(unsigned), format: 'evm_eip1559', ataRentLamports: null, estimatedFeeLamports: null, ...fee },
    ataRentLamports: null,
    buildData: { ...buildData },
  };
}
