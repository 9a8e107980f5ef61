// Map an on-chain transaction error to the intent's failureReason.
// Solana has no "revert": a landed transaction fails inside a program, so the choices are
// insufficient_balance (the payer lacked tokens or lamports) or program_error (anything else);
// 'revert' stays the EVM word.
import type { FailureReason } from '../../domain/intent';
import type { RpcTransactionError } from './rpc';

/** SPL Token's TokenError::InsufficientFunds is custom error 1. */
const SPL_TOKEN_INSUFFICIENT_FUNDS = 1;

export function failureReasonOf(err: RpcTransactionError): FailureReason {
  if (typeof err === 'string') {
    return /InsufficientFunds/.test(err) ? 'insufficient_balance' : 'program_error';
  }
  const ixErr = (err as { InstructionError?: unknown }).InstructionError;
  if (Array.isArray(ixErr)) {
    const inner = ixErr[1];
    if (inner === 'InsufficientFunds') return 'insufficient_balance';
    if (inner && typeof inner === 'object' && (inner as { Custom?: unknown }).Custom === SPL_TOKEN_INSUFFICIENT_FUNDS) {
      // Custom(1) is InsufficientFunds for the token program; our messages call no other program that
      // returns custom errors (compute budget and ATA creation fail with built-in errors).
      return 'insufficient_balance';
    }
    return 'program_error';
  }
  if ('InsufficientFundsForRent' in err) return 'insufficient_balance';
  return 'program_error';
}

export function describeError(err: RpcTransactionError): string {
  return typeof err === 'string' ? err : JSON.stringify(err);
}
