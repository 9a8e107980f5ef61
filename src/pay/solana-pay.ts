// Solana Pay transaction requests (contract 12; the Solana Pay specification): the Solana QR of the
// page is `solana:<url-encoded <publicUrl>/pay/<payToken>/solana-pay>`. A wallet GETs it for
// {label, icon}, POSTs {account} for {transaction, message}: the unsigned wire transaction that
// `build` makes with fee payer = account (the intent's reference included). The wallet signs and
// sends it itself; detection finds it. Wallets call from anywhere, so these answers allow any origin.
import { Elysia, t } from 'elysia';
import { AppError } from '../domain/errors';
import { buildTransaction } from '../intents/build-transaction';
import { forPayer } from './for-payer';
import type { PayRouteKit } from './kit';

// Set in `transform` (before validation and the handler), so refusals (unknown link, bad body, a
// payer already chosen) reach a browser-based wallet with their message, not a CORS failure.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, accept',
};

/** The wire transaction around a v0 message: compact-u16 signature count, empty slots, message. */
export function unsignedWireTransaction(messageBase64: string): string {
  const message = Buffer.from(messageBase64, 'base64');
  const signers = message[0]! & 0x80 ? message[1]! : message[0]!;
  if (signers > 127) throw new Error('more than 127 signers needs a longer compact-u16');
  return Buffer.concat([Buffer.from([signers]), Buffer.alloc(64 * signers), message]).toString('base64');
}

export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#2752e7"/><path d="M20 46V18h14a9 9 0 0 1 0 18h-7v10z" fill="#fff"/></svg>';

export function solanaPayRoutes(k: PayRouteKit) {
  return new Elysia({ name: 'pay.solana-pay' })
    .get('/pay/icon.svg', () => new Response(ICON_SVG, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400', ...CORS } }), {
      detail: { hide: true },
    })
    .options('/pay/:token/solana-pay', () => new Response(null, { status: 204, headers: CORS }), { detail: { hide: true } })
    .get('/pay/:token/solana-pay', async ({ params }) => {
      const i = await k.must(params.token);
      if (!i.chain.startsWith('solana:')) throw new AppError('intent.not_found', 'No Solana payment for this link.');
      return { label: await k.merchantName(i.accountId), icon: `${k.publicUrl()}/pay/icon.svg` };
    }, { transform: ({ set }) => void Object.assign(set.headers, CORS), detail: { hide: true } })
    .post('/pay/:token/solana-pay', async ({ params, body }) => {
      const i = await k.must(params.token);
      if (!i.chain.startsWith('solana:')) throw new AppError('intent.not_found', 'No Solana payment for this link.');
      // Another wallet attached: said without naming it (for-payer.ts).
      const r = await buildTransaction(k.services, k.ownerOf(i), { id: i.id, fulfiller: body.account }).catch(forPayer).catch((e: unknown) => {
        // The verb's `fulfiller` is this body's `account`: the refusal names the field the wallet sent.
        if (e instanceof AppError && e.param === 'fulfiller') throw new AppError(e.code, e.message.replace(/^fulfiller\b/, 'account'), { param: 'account', details: e.details, cause: e });
        throw e;
      });
      return {
        transaction: unsignedWireTransaction(r.transaction.blob),
        message: `Pay ${r.intent.amount} ${r.intent.token} to ${await k.merchantName(i.accountId)}`,
      };
    }, { transform: ({ set }) => void Object.assign(set.headers, CORS), body: t.Object({ account: t.String({ maxLength: 64 }) }), detail: { hide: true } });
}
