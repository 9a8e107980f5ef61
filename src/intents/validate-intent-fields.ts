// Field rules shared by create and patch: reference, metadata, ttl. Each failure names its param.
import { invalidParam } from '../domain/errors';

export function checkReference(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalidParam('reference', 'reference must be a string.');
  if (v.length > 256) throw invalidParam('reference', 'reference must be at most 256 characters.');
  // PostgreSQL text cannot hold U+0000: refused on both engines alike, never a 500 on one of them.
  if (v.includes('\u0000')) throw invalidParam('reference', 'reference must not contain the NUL character (U+0000).');
  return v;
}

export function checkMetadata(v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParam('metadata', 'metadata must be an object of string values.');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 50) throw invalidParam('metadata', 'metadata may have at most 50 keys.');
  // Built with defineProperty semantics (fromEntries): a "__proto__" or "constructor" key is an
  // ordinary key here, never the object's prototype.
  const out: Array<[string, string]> = [];
  for (const [k, val] of entries) {
    if (k.length === 0 || k.length > 40) throw invalidParam(`metadata.${k.length > 64 ? `${k.slice(0, 64)}…` : k}`, 'metadata keys must be 1 to 40 characters.');
    if (typeof val !== 'string') throw invalidParam(`metadata.${k}`, 'metadata values must be strings.');
    if (val.length > 500) throw invalidParam(`metadata.${k}`, 'metadata values must be at most 500 characters.');
    out.push([k, val]);
  }
  return Object.fromEntries(out);
}

export function checkTtl(v: unknown, bounds: { defaultTtlSeconds: number; minTtlSeconds: number; maxTtlSeconds: number }): number {
  if (v === undefined || v === null) return bounds.defaultTtlSeconds;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParam('ttlSeconds', 'ttlSeconds must be an integer.');
  if (v < bounds.minTtlSeconds || v > bounds.maxTtlSeconds) {
    throw invalidParam('ttlSeconds', `ttlSeconds must be between ${bounds.minTtlSeconds} and ${bounds.maxTtlSeconds}.`, {
      min: bounds.minTtlSeconds,
      max: bounds.maxTtlSeconds,
    });
  }
  return v;
}
