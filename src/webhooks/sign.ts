// Webhook signatures: the PayForge X-PF-Signature (Stripe-style, keyed with the whole secret
// string) and the Standard Webhooks headers (keyed with the decoded bytes after `whsec_`), so
// the Standard Webhooks reference libraries verify our deliveries unchanged.
import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (contract section 8). */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

// Bun's native HMAC (Bun.CryptoHasher with a key): the same bytes as node:crypto's createHmac at
// about half its cost (two or three HMACs per delivery; test/webhooks/units checks both agree).
// Keyed once per secret and copied per message: the key schedule (and, for Standard Webhooks, the
// base64 decode of the key) is not redone on every send (a copy + update is ~half a fresh HMAC).
const keyed = new Map<string, Bun.CryptoHasher>();
const KEYED_LIMIT = 1_000;
function keyedHasher(cacheKey: string, key: () => string | Buffer): Bun.CryptoHasher {
  let h = keyed.get(cacheKey);
  if (h === undefined) {
    if (keyed.size >= KEYED_LIMIT) keyed.clear();
    h = new Bun.CryptoHasher('sha256', key());
    keyed.set(cacheKey, h);
  }
  return h.copy();
}

/** Hex HMAC-SHA256 of the raw body keyed with the whole secret string as UTF-8 (seed 6.3). */
export function pfSignature(secret: string, body: string): string {
  return keyedHasher(`pf ${secret}`, () => secret).update(body, 'utf8').digest('hex');
}

/** One Standard Webhooks signature `v1,<base64>` over `${id}.${timestamp}.${body}`. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const h = keyedHasher(`sw ${secret}`, () => Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64'));
  // In parts: the ~1 KiB body is not copied into one more string first.
  return `v1,${h.update(`${id}.${timestampSeconds}.`, 'utf8').update(body, 'utf8').digest('base64')}`;
}

export interface SignInput {
  /** The event id: the Standard Webhooks message id, stable across retries so receivers dedupe. */
  eventId: string;
  body: string;
  /** The current secret first; the previous one (rotation overlap) after it, if still valid. */
  secrets: readonly string[];
  /** Unix seconds at send time: every retry carries a fresh timestamp. */
  timestampSeconds: number;
}

/** All signing headers of one delivery attempt. */
export function signHeaders(input: SignInput): Record<string, string> {
  const [current] = input.secrets;
  if (current === undefined) throw new Error('signHeaders: no secret');
  return {
    'X-PF-Signature': pfSignature(current, input.body),
    'X-PF-Event-Id': input.eventId,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestampSeconds),
    // Space-separated list: a receiver still holding the old secret keeps verifying.
    'webhook-signature':
      input.secrets.length === 1
        ? standardSignature(current, input.eventId, input.timestampSeconds, input.body)
        : input.secrets.map((s) => standardSignature(s, input.eventId, input.timestampSeconds, input.body)).join(' '),
  };
}
