// Reading column values the same way on both engines: SQLite hands back numbers and 0/1 flags,
// Bun's PostgreSQL client hands back int8 (times in ms, seqs, counts) as strings and BOOLEAN as
// booleans. Every value we keep in an int8 is far below 2^53, so it becomes a number here.
// Amounts are never int8: they stay decimal TEXT, read as BigInt.
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
/** A flag column: INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';
/** A JSON TEXT column, or null. */
export const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : (JSON.parse(v as string) as T));
