// Does a compiled message pay the intent exactly? Used when the submitted message is not the one
// PayForge built (a wallet may rebuild it). Only instructions that cannot move value elsewhere pass.
import type { CompiledTransactionMessage, ReadonlyUint8Array } from '@solana/kit';
import type { ChainIntent } from '../types';
import { ASSOCIATED_TOKEN_PROGRAM, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, TOKEN_PROGRAM } from './programs';

export interface Difference {
  field: string;
  expected: unknown;
  actual: unknown;
  instruction?: number;
}

interface Payment {
  instruction: number;
  source: string;
  mint: string | null;
  destination: string;
  authority: string;
  amount: bigint;
  decimals: number | null;
}

const TOKEN_TRANSFER = 3;
const TOKEN_TRANSFER_CHECKED = 12;

export function findPaymentProblems(
  message: CompiledTransactionMessage,
  intent: ChainIntent,
  feePayer: string,
  requestorAta: string,
): Difference[] {
  const out: Difference[] = [];
  if (message.version !== 0 && message.version !== 'legacy') {
    return [{ field: 'version', expected: 0, actual: message.version }];
  }
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : [];
  if (lookups.length > 0) {
    // Accounts behind lookup tables are not visible here, so nothing about them can be proven.
    return [{ field: 'addressTableLookups', expected: 0, actual: lookups.length }];
  }
  const keys = message.staticAccounts;
  const payments: Payment[] = [];

  message.instructions.forEach((ix, i) => {
    const program = keys[ix.programAddressIndex];
    const accounts = (ix.accountIndices ?? []).map((k) => keys[k]);
    const data = ix.data ?? new Uint8Array();
    if (program === undefined || accounts.some((a) => a === undefined)) {
      out.push({ field: 'instructions', instruction: i, expected: 'valid account indices', actual: 'out of range' });
      return;
    }
    const acc = accounts as string[];
    if (program === COMPUTE_BUDGET_PROGRAM || program === MEMO_PROGRAM) return;
    if (program === ASSOCIATED_TOKEN_PROGRAM) {
      // Create (empty data or 0) and CreateIdempotent (1): only of the requestor's account for this mint.
      const kind = data.length === 0 ? 0 : data[0];
      if ((kind === 0 || kind === 1) && acc[1] === requestorAta && acc[2] === intent.requestor && acc[3] === intent.tokenAddress) {
        return;
      }
      out.push({ field: 'instructions', instruction: i, expected: "only creating the requestor's token account", actual: acc[1] ?? null });
      return;
    }
    if (program === TOKEN_PROGRAM && data[0] === TOKEN_TRANSFER_CHECKED && data.length === 10 && acc.length >= 4) {
      payments.push({
        instruction: i, source: acc[0]!, mint: acc[1]!, destination: acc[2]!, authority: acc[3]!,
        amount: readU64(data, 1), decimals: data[9]!,
      });
      return;
    }
    if (program === TOKEN_PROGRAM && data[0] === TOKEN_TRANSFER && data.length === 9 && acc.length >= 3) {
      // Plain Transfer names no mint; the destination being the requestor's ATA of this mint pins it.
      payments.push({
        instruction: i, source: acc[0]!, mint: null, destination: acc[1]!, authority: acc[2]!,
        amount: readU64(data, 1), decimals: null,
      });
      return;
    }
    out.push({ field: 'instructions', instruction: i, expected: 'compute budget, memo, token account creation or one token transfer', actual: program });
  });

  if (payments.length !== 1) {
    out.push({ field: 'transfers', expected: 1, actual: payments.length });
    return out;
  }
  const p = payments[0]!;
  const check = (field: string, expected: unknown, actual: unknown) => {
    if (expected !== actual) out.push({ field, instruction: p.instruction, expected, actual });
  };
  check('destination', requestorAta, p.destination);
  if (p.mint !== null) check('mint', intent.tokenAddress, p.mint);
  if (p.amount !== intent.amountBaseUnits) {
    out.push({ field: 'amount', instruction: p.instruction, expected: intent.amountBaseUnits.toString(), actual: p.amount.toString() });
  }
  if (p.decimals !== null) check('decimals', intent.decimals, p.decimals);
  // The tokens must leave the fee payer's (= fulfiller's) wallet, so screening the signer covers the payer.
  check('authority', feePayer, p.authority);
  return out;
}

function readU64(data: ReadonlyUint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(data[offset + i]!);
  return v;
}

/** The accounts of the message's one token transfer (null when it has none or several). */
export function transferAccounts(message: CompiledTransactionMessage): { source: string; destination: string; authority: string } | null {
  if (message.version !== 0 && message.version !== 'legacy') return null;
  const keys = message.staticAccounts;
  const found: Array<{ source: string; destination: string; authority: string }> = [];
  for (const ix of message.instructions) {
    if (keys[ix.programAddressIndex] !== TOKEN_PROGRAM) continue;
    const acc = (ix.accountIndices ?? []).map((k) => keys[k]);
    const data = ix.data ?? new Uint8Array();
    if (data[0] === TOKEN_TRANSFER_CHECKED && acc.length >= 4) found.push({ source: acc[0]!, destination: acc[2]!, authority: acc[3]! });
    else if (data[0] === TOKEN_TRANSFER && acc.length >= 3) found.push({ source: acc[0]!, destination: acc[1]!, authority: acc[2]! });
  }
  return found.length === 1 ? found[0]! : null;
}
