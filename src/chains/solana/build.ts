// build: the unsigned v0 message a fulfiller signs to pay an intent in SPL tokens
// (compute budget, the requestor's token account when missing, transferChecked; fee payer = fulfiller).
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64Decoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { AppError } from '../../domain/errors';
import type { RpcPool } from '../../rpc/types';
import type { BuildResult, ChainIntent, Network } from '../types';
import { associatedTokenAddress } from './ata';
import {
  COMPUTE_UNIT_PRICE_MICRO_LAMPORTS,
  COMPUTE_UNITS_TRANSFER,
  COMPUTE_UNITS_TRANSFER_WITH_ATA,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM,
} from './programs';
import { getFeeForMessage, getLatestBlockhash, getMinimumBalanceForRentExemption, getMultipleAccounts } from './rpc';

/** What build remembers (stored with the intent, handed back to verifySubmission). */
export interface SolanaBuildData {
  blockhash: string;
  lastValidBlockHeight: number;
  /** base64 of the exact message returned, so an unchanged signed message is recognised byte for byte. */
  message: string;
  feePayer: string;
  requestorTokenAccount: string;
  /** Slot of the bank the blockhash came from (absent in builds from older versions). */
  slot?: number;
  /** What build answered, so a repeated build answers the same (contract 14, idempotent build). */
  ataRentLamports?: number;
  estimatedFeeLamports?: number | null;
}

export async function build(network: Network, rpc: RpcPool, intent: ChainIntent, fulfiller: string): Promise<BuildResult> {
  const mint = intent.tokenAddress;
  const [requestorAta, fulfillerAta] = await Promise.all([
    associatedTokenAddress(intent.requestor, mint),
    associatedTokenAddress(fulfiller, mint),
  ]);
  // 'confirmed' everywhere in build: fresh enough to see a just-created account, and a confirmed
  // blockhash leaves more of its 150-block window than a finalized one.
  const [[mintAccount, requestorAccount], latest] = await Promise.all([
    getMultipleAccounts(rpc, [mint, requestorAta], 'confirmed'),
    getLatestBlockhash(rpc, 'confirmed'),
  ]);
  checkMint(network, intent, mintAccount ?? null);

  const needsAta = (requestorAccount ?? null) === null;
  const ataRentLamports = needsAta ? await getMinimumBalanceForRentExemption(rpc, TOKEN_ACCOUNT_SIZE) : 0;

  const payer = createNoopSigner(address(fulfiller));
  const instructions: Instruction[] = [
    getSetComputeUnitLimitInstruction({ units: needsAta ? COMPUTE_UNITS_TRANSFER_WITH_ATA : COMPUTE_UNITS_TRANSFER }),
    getSetComputeUnitPriceInstruction({ microLamports: COMPUTE_UNIT_PRICE_MICRO_LAMPORTS }),
  ];
  if (needsAta) {
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer,
        ata: address(requestorAta),
        owner: address(intent.requestor),
        mint: address(mint),
      }),
    );
  }
  const transfer = getTransferCheckedInstruction({
    source: address(fulfillerAta),
    mint: address(mint),
    destination: address(requestorAta),
    authority: payer,
    amount: intent.amountBaseUnits,
    decimals: intent.decimals,
  });
  // Solana Pay reference convention: the intent's reference rides on the transfer as a read-only,
  // non-signer account, so a getSignaturesForAddress on it finds the payment whoever sends it.
  const reference = intent.solanaReference ? [{ address: address(intent.solanaReference), role: AccountRole.READONLY }] : [];
  instructions.push({ ...transfer, accounts: [...transfer.accounts, ...reference] });

  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(fulfiller), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const blob = getBase64Decoder().decode(compileTransaction(message).messageBytes);
  const estimatedFeeLamports = await getFeeForMessage(rpc, blob, 'confirmed');

  const buildData: SolanaBuildData = {
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
    message: blob,
    feePayer: fulfiller,
    requestorTokenAccount: requestorAta,
    slot: latest.slot,
    ataRentLamports,
    estimatedFeeLamports,
  };
  return {
    transaction: {
      blob,
      format: 'solana_v0_message',
      ataRentLamports,
      estimatedFeeLamports,
      estimatedFeeUsdc: null,
      estimatedFeeEth: null,
    },
    ataRentLamports,
    buildData: { ...buildData },
  };
}

/** The mint must exist, belong to the classic SPL Token program and have the configured decimals. */
function checkMint(network: Network, intent: ChainIntent, mint: { owner: string; data: [string, 'base64'] } | null): void {
  const details = { chain: network.chain, token: intent.token, mint: intent.tokenAddress };
  if (mint === null) {
    throw new AppError('token.unavailable_on_chain', `Mint ${intent.tokenAddress} does not exist on ${network.chain}`, {
      details,
    });
  }
  if (mint.owner === TOKEN_2022_PROGRAM) {
    // Token-2022 mints can carry transfer fees and hooks that change what the requestor receives;
    // refusing is safer than building a transfer whose arriving amount we cannot guarantee.
    throw new AppError('token.unsupported_program', `Token-2022 mints are not supported (${intent.tokenAddress})`, {
      details: { ...details, program: mint.owner },
    });
  }
  if (mint.owner !== TOKEN_PROGRAM) {
    throw new AppError('token.unsupported_program', `${intent.tokenAddress} is not an SPL Token mint`, {
      details: { ...details, program: mint.owner },
    });
  }
  // Mint layout: COption<Pubkey> (36 bytes), supply u64 (8), decimals u8 at offset 44.
  const data = Buffer.from(mint.data[0], 'base64');
  if (data.length < 82 || data[44] !== intent.decimals) {
    throw new AppError('token.unavailable_on_chain', `Mint ${intent.tokenAddress} does not have ${intent.decimals} decimals`, {
      details: { ...details, onChainDecimals: data.length >= 82 ? data[44] : null },
    });
  }
}
