// Program addresses and the fixed numbers of the transfer PayForge builds.
// The compute figures were measured on LiteSVM with the real SPL programs, then given headroom.

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** SPL token account size (165 bytes): the rent of the requestor's token account. */
export const TOKEN_ACCOUNT_SIZE = 165;

/** transferChecked uses ~6k CU; creating the token account adds ~20k on mainnet's ATA program. */
export const COMPUTE_UNITS_TRANSFER = 12_000;
export const COMPUTE_UNITS_TRANSFER_WITH_ATA = 45_000;

/**
 * Priority fee in micro-lamports per CU. A small fixed bid: with the tight CU limits above it
 * costs well under 1000 lamports, and PayForge rebroadcasts every ~2 s instead of overbidding.
 */
export const COMPUTE_UNIT_PRICE_MICRO_LAMPORTS = 20_000n;

/** A blockhash stays usable for 150 blocks after the block that produced it (MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALIDITY_BLOCKS = 150;

/** getSignatureStatuses accepts at most this many signatures per call. */
export const MAX_SIGNATURES_PER_STATUS_CALL = 256;
