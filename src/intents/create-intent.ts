// Create a PaymentIntent: validate, screen the wallets, then one write that inserts the intent,
// its intent.created event and delivery, and the idempotency record together (Runtime.create: on
// the intent writer thread under serve on SQLite, else in the event loop's write path).
import { createHash } from 'node:crypto';
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { newSolanaReference } from '../domain/base58';
import { newId } from '../domain/ids';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { formatAmount, MAX_AMOUNT_CHARS, MAX_BASE_UNITS, parseAmount } from '../domain/money';
import { withFreshLifecycle } from './fresh-intent';
import { refuseSelfPayment, refuseSink, resolveAddress, resolveNetwork, resolveToken } from './resolve-chain';
import type { IdempotencyRepo, StoredResponse } from '../store/idempotency';
import type { Services } from './services';
import { checkMetadata, checkReference, checkTtl } from './validate-intent-fields';
import { newPayToken } from '../domain/pay-url';

/** The request body, as the edge's schema admits it (exact: no other key reaches the verb). */
export interface CreateIntentBody {
  chain: string;
  token: string;
  amount: string;
  requestor: string;
  reference?: string | null;
  ttlSeconds?: number;
  metadata?: Record<string, string>;
  fulfiller?: string | null;
  direction?: 'request';
  idempotencyKey?: string;
}

export interface CreateIntentInput {
  body: CreateIntentBody;
  /** The Idempotency-Key header, if sent. */
  idempotencyKeyHeader: string | null;
}

export interface CreateIntentResult {
  intent: PaymentIntentWire;
  /** The first response again, for a repeated idempotency key (the edge says so in a header). */
  replayed: boolean;
}

function resolveIdempotencyKey(header: string | null, body: CreateIntentBody): string | null {
  const fromBody = body.idempotencyKey;
  if (header !== null && fromBody !== undefined && fromBody !== header) {
    throw invalidParam('idempotencyKey', 'The Idempotency-Key header and the body idempotencyKey differ.');
  }
  const key = header ?? fromBody ?? null;
  if (key !== null && (key.length < 1 || key.length > 255)) {
    throw invalidParam(header !== null ? 'Idempotency-Key' : 'idempotencyKey', 'Idempotency keys are 1 to 255 characters.');
  }
  // A header cannot carry U+0000; a body key could, and PostgreSQL text cannot store it.
  if (key !== null && key.includes('\u0000')) throw invalidParam('idempotencyKey', 'Idempotency keys must not contain the NUL character (U+0000).');
  return key;
}

/** Canonical JSON (sorted keys) so the same body in another key order is the same request. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function hashRequest(body: CreateIntentBody): string {
  const { idempotencyKey: _ignored, ...hashed } = body;
  return createHash('sha256').update(canonical(hashed)).digest('hex');
}

export async function createIntent(s: Services, caller: Caller, input: CreateIntentInput): Promise<CreateIntentResult> {
  const { body } = input;
  const key = resolveIdempotencyKey(input.idempotencyKeyHeader, body);
  // The request hash only matters for idempotent requests: skip canonical JSON + SHA-256 otherwise.
  const requestHash = key === null ? '' : hashRequest(body);
  if (key !== null) {
    const replay = await lookupReplay(s.idempotency, caller, key, requestHash);
    if (replay) return replay;
    if (!(await s.idempotency.claim(caller.accountId, caller.mode, key))) {
      throw new AppError('idempotency.in_progress', 'A request with this idempotency key is still being processed.', {
        param: 'Idempotency-Key',
      });
    }
  }
  try {
    const network = resolveNetwork(s.chains, caller, body.chain);
    const token = resolveToken(network, body.token);
    const symbol = body.token as string;
    if (typeof body.amount !== 'string') throw invalidParam('amount', 'amount must be a decimal string such as "12.34".');
    const max = MAX_BASE_UNITS.get(network.family)!;
    const parsed = parseAmount(body.amount, token.decimals, max);
    if (!parsed.ok) {
      const why = {
        too_long: `amount must be at most ${MAX_AMOUNT_CHARS} characters.`,
        format: 'amount must be a decimal string such as "12.34" (no sign, exponent or spaces).',
        too_many_decimals: `amount has more than ${token.decimals} decimals, the precision of ${symbol}.`,
        not_positive: 'amount must be greater than zero.',
        too_large: `amount is more than a ${network.family === 'evm' ? 'uint256' : 'u64'} transfer can carry (${formatAmount(max, token.decimals)} ${symbol}).`,
      }[parsed.reason];
      throw invalidParam('amount', why, { decimals: token.decimals, ...(parsed.reason === 'too_large' ? { max: formatAmount(max, token.decimals) } : {}) });
    }
    if (body.direction !== undefined && body.direction !== 'request') throw invalidParam('direction', 'direction must be "request".');
    const requestor = resolveAddress(s.chains, network, 'requestor', body.requestor);
    const fulfiller = body.fulfiller === undefined || body.fulfiller === null ? null : resolveAddress(s.chains, network, 'fulfiller', body.fulfiller);
    refuseSink(network, token.address, 'requestor', requestor);
    if (fulfiller !== null) refuseSink(network, token.address, 'fulfiller', fulfiller);
    if (fulfiller !== null) refuseSelfPayment('fulfiller', fulfiller, requestor);
    const reference = checkReference(body.reference);
    const metadata = checkMetadata(body.metadata);
    const ttlSeconds = checkTtl(body.ttlSeconds, s.config.intents);

    const screened = [{ address: requestor, param: 'requestor', family: network.family }];
    if (fulfiller) screened.push({ address: fulfiller, param: 'fulfiller', family: network.family });
    await s.screener.screen(screened);

    // The wire form of the new intent: its event, its stored response and this answer are the
    // same object (toWire renders a record once).
    const created = await s.runtime.create({
      wire: toWire,
      fields: (now) =>
        withFreshLifecycle({
          id: newId('pi'),
          accountId: caller.accountId,
          mode: caller.mode,
          chain: network.chain,
          token: symbol,
          tokenAddress: token.address,
          decimals: token.decimals,
          amountBaseUnits: parsed.baseUnits,
          requestor,
          fulfiller,
          direction: 'request',
          reference,
          metadata,
          idempotencyKey: key,
          ttlSeconds,
          expiresAt: now + ttlSeconds * 1000,
          createdAt: now,
          updatedAt: now,
          refundOf: null,
          solanaReference: network.family === 'solana' ? newSolanaReference() : null,
          payToken: newPayToken(),
        }),
      idempotency:
        key === null
          ? null
          : {
              accountId: caller.accountId,
              mode: caller.mode,
              key,
              ttlSeconds: s.config.idempotency.ttlSeconds,
              // The stored status is the one create always answers with (the column predates this verb's shape).
              response: (intent) => ({ requestHash, responseStatus: 201, responseBody: JSON.stringify({ intent: toWire(intent) }) }),
            },
    });
    if ('intent' in created) return { intent: toWire(created.intent), replayed: false };
    // Another process (or a request that finished meanwhile) stored it first.
    if ('replay' in created) return replayOf(created.replay, requestHash);
    // Another request committed this key between that look-up and our write (another instance
    // past its claim): ours rolled back; answer with that request's response instead.
    const replay = await lookupReplay(s.idempotency, caller, key!, requestHash);
    if (replay) return replay;
    throw new AppError('idempotency.in_progress', 'A request with this idempotency key is still being processed.', { param: 'Idempotency-Key' });
  } finally {
    if (key !== null) await s.idempotency.release(caller.accountId, caller.mode, key);
  }
}

async function lookupReplay(idempotency: IdempotencyRepo, caller: Caller, key: string, requestHash: string): Promise<CreateIntentResult | null> {
  const stored = await idempotency.get(caller.accountId, caller.mode, key, Date.now());
  return stored ? replayOf(stored, requestHash) : null;
}

/** The first response of a key again, for a request with the same body (else 409 key_reused). */
function replayOf(stored: StoredResponse, requestHash: string): CreateIntentResult {
  if (stored.requestHash !== requestHash) {
    throw new AppError('idempotency.key_reused', 'This idempotency key was already used with a different request body.', {
      param: 'Idempotency-Key',
    });
  }
  return { intent: (JSON.parse(stored.responseBody) as { intent: PaymentIntentWire }).intent, replayed: true };
}
