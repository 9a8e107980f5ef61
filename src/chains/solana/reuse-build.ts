// Idempotent build (contract 14): while the intent's last built message can still land (its
// blockhash is valid) and was built for the same fulfiller, build answers that very message. A
// fresh blockhash would be a second, independently landable payment.
import { getCompiledTransactionMessageDecoder } from '@solana/kit';
import type { RpcPool } from '../../rpc/types';
import type { BuildResult, ChainIntent, Network } from '../types';
import { associatedTokenAddress } from './ata';
import type { SolanaBuildData } from './build';
import { findPaymentProblems } from './payment-check';
import { isBlockhashValid } from './rpc';

type Stored = SolanaBuildData & { slot: number; ataRentLamports: number; estimatedFeeLamports: number | null };

/** The stored facts of a Solana build, or null for anything else (another family, an older shape). */
function readBuildData(d: Record<string, unknown> | null): Stored | null {
  if (!d) return null;
  const strings = ['blockhash', 'message', 'feePayer', 'requestorTokenAccount'] as const;
  if (!strings.every((k) => typeof d[k] === 'string')) return null;
  if (!Number.isSafeInteger(d.lastValidBlockHeight) || !Number.isSafeInteger(d.slot) || !Number.isSafeInteger(d.ataRentLamports)) return null;
  if (d.estimatedFeeLamports !== null && !Number.isSafeInteger(d.estimatedFeeLamports)) return null;
  return d as unknown as Stored;
}

export async function reuseBuild(
  _network: Network,
  rpc: RpcPool,
  intent: ChainIntent,
  fulfiller: string,
  stored: Record<string, unknown> | null,
): Promise<BuildResult | null> {
  const d = readBuildData(stored);
  if (!d || d.feePayer !== fulfiller) return null;
  // It must still pay the intent as the row says now, byte for byte what build would intend.
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  try {
    message = getCompiledTransactionMessageDecoder().decode(new Uint8Array(Buffer.from(d.message, 'base64')));
  } catch {
    return null;
  }
  const requestorAta = await associatedTokenAddress(intent.requestor, intent.tokenAddress);
  if (findPaymentProblems(message, intent, fulfiller, requestorAta).length > 0) return null;
  // Valid at confirmed: the message can still land, so it is THE payment for this intent.
  const { valid } = await isBlockhashValid(rpc, d.blockhash, 'confirmed');
  if (!valid) return null;
  return {
    transaction: {
      blob: d.message,
      format: 'solana_v0_message',
      ataRentLamports: d.ataRentLamports,
      estimatedFeeLamports: d.estimatedFeeLamports,
      estimatedFeeUsdc: null,
      estimatedFeeEth: null,
    },
    ataRentLamports: d.ataRentLamports,
    buildData: { ...d },
  };
}
