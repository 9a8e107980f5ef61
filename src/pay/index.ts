// /pay/<payToken>: the payment page (contract 12), a web surface beside the API and the dashboard.
// No API key: the token is the payer's capability for ONE intent. Unknown or malformed tokens get
// a 404 page (or the 404 envelope) that says nothing about any intent; every route is rate-limited
// per token like an API key. Build and submit call the same verbs as the API, as the intent's owner.
import { randomBytes } from 'node:crypto';
import { Elysia, t } from 'elysia';
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { buildTransaction } from '../intents/build-transaction';
import type { Services } from '../intents/services';
import { submitTransaction } from '../intents/submit-transaction';
import type { StoredIntent } from '../store/intents';
import { notFoundPage, payPage } from './page';
import { qrSvg } from '../web/qr';
import type { PayRouteKit } from './kit';
import { solanaPayRoutes } from './solana-pay';
import { forPayer } from './for-payer';
import { payStatus, payView, walletMayPay, type PayIntent } from './view';

export const PAY_TOKEN_RE = /^pt_[0-9A-Za-z]{32}$/;

export interface PayDeps {
  services: Services;
  findByPayToken(token: string): Promise<(StoredIntent & { payToken: string }) | null>;
  merchantName(accountId: string): Promise<string>;
  /** The URL payers reach this server at (config publicUrl, else the listening address). */
  publicUrl(): string;
  /** Token bucket (src/web/rate-limit.ts): 0 = allowed, else seconds to wait. */
  limiter: { take(key: string): number };
}

function csp(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // Nothing from another origin, ever: the QR is inline SVG, the script and style carry the nonce.
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

const notFound = () => new AppError('intent.not_found', 'No payment for this link.');

export function payPlugin(d: PayDeps) {
  /** The intent behind a token, after the rate limit; null for an unknown or malformed token. */
  const load = async (token: string) => {
    const known = PAY_TOKEN_RE.test(token) ? await d.findByPayToken(token) : null;
    const wait = d.limiter.take(known ? `pay:${token}` : 'pay:unknown');
    if (wait > 0) throw new AppError('rate_limit.exceeded', 'Too many requests for this payment link; slow down.', { details: { retry_after: wait } });
    return known;
  };
  const must = async (token: string) => {
    const i = await load(token);
    if (!i) throw notFound();
    return i;
  };
  // The verbs check ownership: act as the intent's own account and mode.
  const ownerOf = (i: StoredIntent & { payToken: string }): Caller => ({ accountId: i.accountId, mode: i.mode, plan: 'free', keyId: `pay:${i.payToken}` });
  const view = async (i: StoredIntent & { payToken: string }) =>
    payView(i as PayIntent, d.services.chains.network(i.chain)!, await d.merchantName(i.accountId), d.publicUrl());

  const kit: PayRouteKit = { services: d.services, must, ownerOf, merchantName: d.merchantName, publicUrl: d.publicUrl };
  return new Elysia({ name: 'pay' })
    .use(solanaPayRoutes(kit))
    .get('/pay/:token', async ({ params }) => {
      const nonce = randomBytes(16).toString('base64');
      const i = await load(params.token);
      if (!i) return new Response(notFoundPage(nonce), { status: 404, headers: csp(nonce) });
      const v = await view(i);
      return new Response(payPage(v, nonce, await qrSvg(v.qrUri)), { headers: csp(nonce) });
    }, { detail: { hide: true } })
    .get('/pay/:token/status', async ({ params, query, set }) => {
      set.headers['cache-control'] = 'no-store';
      const i = (await must(params.token)) as PayIntent;
      // ?wallet=: whether that wallet may pay (no wallet attached yet, or this one), asked by the
      // page just before a wallet sends; the attached wallet itself is never named (for-payer.ts).
      if (query.wallet === undefined) return payStatus(i);
      return { ...payStatus(i), walletMayPay: walletMayPay(i, d.services.chains.network(i.chain)!.family, query.wallet) };
    }, {
      // Other parameters are ignored as before (a cache-buster a merchant's own poll adds).
      query: t.Object({ wallet: t.Optional(t.String({ maxLength: 64 })) }, { additionalProperties: true }),
      detail: { hide: true },
    })
    .post('/pay/:token/build', async ({ params, body }) => {
      const i = await must(params.token);
      const r = await buildTransaction(d.services, ownerOf(i), { id: i.id, fulfiller: body.fulfiller }).catch(forPayer);
      return { transaction: r.transaction };
    }, { body: t.Object({ fulfiller: t.String({ maxLength: 64 }) }, { additionalProperties: false }), detail: { hide: true } })
    .post('/pay/:token/submit', async ({ params, body }) => {
      const i = await must(params.token);
      await submitTransaction(d.services, ownerOf(i), { id: i.id, ...body }).catch(forPayer);
      return { status: payStatus((await must(params.token)) as PayIntent) };
    }, {
      body: t.Object(
        { txSignature: t.Optional(t.String({ maxLength: 128 })), signedTransaction: t.Optional(t.String({ maxLength: 8192 })) },
        { additionalProperties: false },
      ),
      detail: { hide: true },
    });
}
