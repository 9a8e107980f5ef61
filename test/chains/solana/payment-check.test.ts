// The rebuilt-message path of verifySubmission: which instructions may sit beside the payment,
// and how on-chain errors map to failure reasons. Pure: no chain needed.
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getCloseAccountInstruction, getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token';
import { describe, expect, test } from 'vitest';
import { associatedTokenAddress } from '../../../src/chains/solana/ata';
import { failureReasonOf } from '../../../src/chains/solana/failure';
import { findPaymentProblems } from '../../../src/chains/solana/payment-check';
import { DEVNET_USDC_MINT } from '../../support/solana/local-solana';
import { intentFor } from './helpers';

async function setup() {
  const fulfiller = await generateKeyPairSigner();
  const requestor = await generateKeyPairSigner();
  const intent = intentFor(requestor.address, fulfiller.address, 5_000_000n);
  const src = address(await associatedTokenAddress(fulfiller.address, DEVNET_USDC_MINT));
  const dst = address(await associatedTokenAddress(requestor.address, DEVNET_USDC_MINT));
  const payer = createNoopSigner(fulfiller.address);
  const pay = getTransferCheckedInstruction({ source: src, mint: address(DEVNET_USDC_MINT), destination: dst, authority: payer, amount: 5_000_000n, decimals: 6 });
  const problems = (ixs: Instruction[]) => {
    const m = pipe(
      createTransactionMessage({ version: 0 }),
      (x) => setTransactionMessageFeePayer(fulfiller.address, x),
      (x) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash('4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi'), lastValidBlockHeight: 1n }, x),
      (x) => appendTransactionMessageInstructions(ixs, x),
    );
    const compiled = getCompiledTransactionMessageDecoder().decode(compileTransaction(m).messageBytes);
    return findPaymentProblems(compiled, intent, fulfiller.address, dst).map((d) => d.field);
  };
  return { fulfiller, requestor, intent, src, dst, payer, pay, problems };
}

describe('findPaymentProblems', () => {
  test('a minimal transferChecked (no compute budget) pays; so does a plain Transfer to the right account', async () => {
    const { problems, pay, src, dst, payer } = await setup();
    expect(problems([pay])).toEqual([]);
    expect(problems([getSetComputeUnitLimitInstruction({ units: 300_000 }), getTransferInstruction({ source: src, destination: dst, authority: payer, amount: 5_000_000n })])).toEqual([]);
  });

  test('two transfers, an extra token instruction, or an unknown program are refused', async () => {
    const { problems, pay, src, payer, fulfiller } = await setup();
    expect(problems([pay, pay])).toEqual(['transfers']);
    expect(problems([pay, getCloseAccountInstruction({ account: src, destination: fulfiller.address, owner: payer })])).toContain('instructions');
    const systemTransfer: Instruction = {
      programAddress: address('11111111111111111111111111111111'),
      accounts: [
        { address: fulfiller.address, role: AccountRole.WRITABLE_SIGNER },
        { address: address(DEVNET_USDC_MINT), role: AccountRole.WRITABLE },
      ],
      data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
    };
    expect(problems([pay, systemTransfer])).toEqual(['instructions']);
  });

  test('tokens moved by another authority than the fee payer are refused', async () => {
    const { problems, src, dst } = await setup();
    const other = await generateKeyPairSigner();
    const ix = getTransferCheckedInstruction({ source: src, mint: address(DEVNET_USDC_MINT), destination: dst, authority: createNoopSigner(other.address), amount: 5_000_000n, decimals: 6 });
    expect(problems([ix])).toEqual(['authority']);
  });

  test('wrong decimals are refused even when the raw amount matches', async () => {
    const { problems, src, dst, payer } = await setup();
    const ix = getTransferCheckedInstruction({ source: src, mint: address(DEVNET_USDC_MINT), destination: dst, authority: payer, amount: 5_000_000n, decimals: 9 });
    expect(problems([ix])).toEqual(['decimals']);
  });
});

describe('failureReasonOf', () => {
  test('token and lamport shortfalls are insufficient_balance; everything else program_error', () => {
    expect(failureReasonOf({ InstructionError: [3, { Custom: 1 }] })).toBe('insufficient_balance');
    expect(failureReasonOf({ InstructionError: [0, 'InsufficientFunds'] })).toBe('insufficient_balance');
    expect(failureReasonOf({ InsufficientFundsForRent: { account_index: 0 } })).toBe('insufficient_balance');
    expect(failureReasonOf({ InstructionError: [3, { Custom: 4 }] })).toBe('program_error'); // OwnerMismatch
    expect(failureReasonOf({ InstructionError: [2, 'IllegalOwner'] })).toBe('program_error');
    expect(failureReasonOf('InvalidRentPayingAccount')).toBe('program_error');
  });
});
