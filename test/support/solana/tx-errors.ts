// LiteSVM transaction errors -> the JSON shape and message text a real Solana RPC node uses
// (e.g. {"InstructionError":[3,{"Custom":1}]}), so the adapter is tested against real encodings.
import { FailedTransactionMetadata } from 'litesvm';

// Orders copied from litesvm's internal.d.ts (the napi enums are not readable at runtime).
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

const IX_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync',
  'InvalidError', 'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId', 'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded',
  'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded', 'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar',
  'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;

export type RpcTxError = string | Record<string, unknown>;

export function isFailure(r: unknown): r is FailedTransactionMetadata {
  return r instanceof FailedTransactionMetadata;
}

export function toRpcError(failed: FailedTransactionMetadata): RpcTxError {
  const e = failed.err() as unknown;
  if (typeof e === 'number') return TX_ERRORS[e] ?? `TransactionError${e}`;
  const o = e as { constructor: { name: string }; index?: number; accountIndex?: number; err?: () => unknown };
  switch (o.constructor.name) {
    case 'TransactionErrorInstructionError': {
      const inner = o.err!() as unknown;
      if (typeof inner === 'number') return { InstructionError: [o.index, IX_ERRORS[inner] ?? `InstructionError${inner}`] };
      const code = (inner as { code?: number }).code;
      if (typeof code === 'number') return { InstructionError: [o.index, { Custom: code }] };
      return { InstructionError: [o.index, { BorshIoError: String(inner) }] };
    }
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: o.index };
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: o.accountIndex } };
    case 'TransactionErrorProgramExecutionTemporarilyRestricted':
      return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex } };
    default:
      return String(e);
  }
}

/** Errors of a transaction that executed and lands in a block (fee charged); others never land. */
export function landsOnChain(err: RpcTxError): boolean {
  return typeof err !== 'string' || err === 'InvalidRentPayingAccount';
}

/** The text the RPC's preflight puts after "Transaction simulation failed: ". */
export function describeTxError(err: RpcTxError): string {
  if (err === 'BlockhashNotFound') return 'Blockhash not found';
  if (err === 'AlreadyProcessed') return 'This transaction has already been processed';
  if (err === 'AccountNotFound') return 'Attempt to debit an account but found no record of a prior credit.';
  if (err === 'InsufficientFundsForFee') return 'Insufficient funds for fee';
  if (typeof err === 'string') return err;
  const ix = err.InstructionError as [number, unknown] | undefined;
  if (ix) {
    const [index, inner] = ix;
    const what = typeof inner === 'string'
      ? inner
      : (inner as { Custom?: number }).Custom !== undefined
        ? `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`
        : JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${what}`;
  }
  return JSON.stringify(err);
}
