// /dashboard: the operator's web page (contract section 9). Server-rendered HTML, no build step,
// no external resources. Login with the admin token sets a signed session cookie (HttpOnly,
// SameSite=Strict; the token itself is never stored in it); every POST checks that session, a
// CSRF token tied to it, and that the request comes from this origin. Without an admin token the
// whole dashboard answers 404: it is never open.
import { randomBytes } from 'node:crypto';
import { Elysia } from 'elysia';
import { HTTP_STATUS } from '../web/http-status';
import type { DashboardDeps } from './deps';
import { AppError } from '../domain/errors';
import { INTENT_STATES, type IntentState, type Mode } from '../domain/intent';
import { retryDelivery } from '../webhooks/retry-delivery';
import { rotateSecret } from '../webhooks/rotate-secret';
import { setEndpoint } from '../webhooks/set-endpoint';
import { html, page, type PageOpts, type Safe } from './html';
import { paymentsBody } from './payments';
import { PAYMENT_STATUSES } from '../domain/payment';
import { accountBody, accountsBody, deliveriesBody, errorBox, intentBody, intentsBody, loginBody, type AccountView } from './pages';
import { intentTimeline, PAGE_SIZE } from './queries';
import { listDeliveries } from '../webhooks/list-deliveries';
import { listIntents } from '../intents/list-intents';
import { listPayments } from '../intents/list-payments';
import { COOKIE_NAME, createSessions, readCookie, sessionCookie, SESSION_TTL_MS, type Session } from './session';
import { payUrlOf } from '../domain/pay-url';
import { qrSvg } from '../web/qr';
import { LIVE_JS, LIVE_ROWS, liveBody } from './live';
import { createLiveFeed } from './live-feed';
import { INTENT_LIVE_JS, intentStreamUrl } from './intent-live';

export const DISABLED_MESSAGE = 'disabled: set PAYFORGE_ADMIN_TOKEN';

const ID_RE = /^[A-Za-z0-9_]{1,80}$/;
const isMode = (m: unknown): m is Mode => m === 'test' || m === 'live';

interface Ctx {
  request: Request;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  set: { headers: Record<string, string | number | string[] | undefined> };
}

/** A form field as a string ('' when missing or not a string). */
function field(body: unknown, name: string): string {
  if (!body || typeof body !== 'object') return '';
  const v = (body as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : '';
}

function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // connect-src 'self': the live view's EventSource, to this origin only.
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` on our own
    // form posts, which the origin check must refuse. Other sites still get no Referer.
    'referrer-policy': 'same-origin',
  };
}

function htmlResponse(status: number, o: Omit<PageOpts, 'nonce'>, extra: Record<string, string> = {}): Response {
  const nonce = randomBytes(16).toString('base64');
  return new Response(page({ ...o, nonce }), { status, headers: { ...securityHeaders(nonce), ...extra } });
}

function redirect(location: string, extra: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...extra } });
}

const plain = (status: number, text: string, extra: Record<string, string> = {}) =>
  new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra } });

const disabled = () =>
  new Response(DISABLED_MESSAGE, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });

/**
 * Same-origin check for POSTs, as browsers send it. Sec-Fetch-Site (set by the browser, never by
 * page script) decides when present: only same-origin (or none: typed by the user) passes. Origin,
 * when present, must name this host; `Origin: null` (a sandboxed or opaque page) passes only when
 * Sec-Fetch-Site vouches for it. Neither header: a non-browser client, for which the CSRF token
 * (and for login, the admin token) is the guard.
 */
function sameOrigin(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  if (origin === 'null') return site === 'same-origin';
  const host = request.headers.get('host') ?? new URL(request.url).host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}

export function dashboardPlugin(d: DashboardDeps) {
  const token = d.services.config.adminToken;
  const sessions = token ? createSessions(token) : null;
  // Failed logins: a small global window so the token cannot be guessed at wire speed.
  const failures: number[] = [];
  const MAX_FAILURES = 10;
  const FAILURE_WINDOW_MS = 60_000;

  const live = createLiveFeed(d.repos.liveEvents, d.log);
  d.beforeStop(() => live.close());

  const sessionOf = (request: Request): Session | null => sessions?.verify(readCookie(request.headers.get('cookie'), COOKIE_NAME)) ?? null;

  /** Render any thrown error as a page: AppErrors by their message, anything else as a bare 500. */
  function failure(e: unknown, ctx: Ctx, session: Session | null): Response {
    if (e instanceof AppError) {
      return htmlResponse(HTTP_STATUS[e.code] ?? 400, { title: 'Error', csrf: session?.csrf, body: html`<h1>Error</h1>${errorBox(e.message)}` });
    }
    const rid = String(ctx.set.headers['x-request-id'] ?? '');
    d.log('error', 'dashboard error', { request_id: rid, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    return htmlResponse(500, { title: 'Error', csrf: session?.csrf, body: html`<h1>Something went wrong</h1>${errorBox(`Internal error; request id ${rid}.`)}` });
  }

  /** A page for a logged-in operator; otherwise the login page (GET /dashboard) or a redirect to it. */
  const view =
    (fn: (ctx: Ctx, s: Session) => Response | Promise<Response>, loginHere = false) =>
    async (ctx: Ctx): Promise<Response> => {
      if (!sessions) return disabled();
      const s = sessionOf(ctx.request);
      if (!s) return loginHere ? htmlResponse(200, { title: 'Log in', body: loginBody(null) }) : redirect('/dashboard');
      try {
        return await fn(ctx, s);
      } catch (e) {
        return failure(e, ctx, s);
      }
    };

  /** A state-changing POST: session, same origin and the session's CSRF token, all required. */
  const action =
    (fn: (ctx: Ctx, s: Session) => Response | Promise<Response>) =>
    async (ctx: Ctx): Promise<Response> => {
      if (!sessions) return disabled();
      const s = sessionOf(ctx.request);
      if (!s) return htmlResponse(401, { title: 'Log in', body: loginBody('Your session has ended; log in again.') });
      if (!sameOrigin(ctx.request) || !sessions.checkCsrf(s, field(ctx.body, 'csrf'))) {
        return htmlResponse(403, { title: 'Refused', csrf: s.csrf, body: html`<h1>Refused</h1>${errorBox('The form was not sent from this dashboard (CSRF check failed). Reload the page and try again.')}` });
      }
      try {
        return await fn(ctx, s);
      } catch (e) {
        return failure(e, ctx, s);
      }
    };

  const notFound = (what: string, s: Session) => htmlResponse(404, { title: 'Not found', csrf: s.csrf, body: html`<h1>Not found</h1>${errorBox(`No ${what}.`)}` });

  const accountOf = async (id: string) => (ID_RE.test(id) ? d.repos.accounts.get(id) : null);

  async function accountPage(s: Session, accountId: string, status: number, extra: Partial<AccountView> = {}): Promise<Response> {
    const account = await accountOf(accountId);
    if (!account) return notFound('such account', s);
    const body = accountBody({
      account,
      keys: (await d.repos.apiKeys.list(account.id)).sort((a, b) => b.createdAt - a.createdAt),
      endpoints: await d.repos.endpoints.listInfo(account.id, Date.now()),
      csrf: s.csrf,
      ...extra,
    });
    return htmlResponse(status, { title: account.name, csrf: s.csrf, active: 'accounts', body });
  }

  const hide = { detail: { hide: true } } as const;
  const accountsView = async (_ctx: Ctx, s: Session) =>
    htmlResponse(200, {
      title: 'Accounts', csrf: s.csrf, active: 'accounts',
      body: accountsBody(await d.repos.accounts.list(), await d.repos.intentsOverview.countsByAccount()),
    });

  return new Elysia({ name: 'dashboard' })
    .get('/dashboard', view(accountsView, true), hide)
    .post(
      '/dashboard/login',
      ((ctx: Ctx) => {
        if (!sessions) return disabled();
        if (!sameOrigin(ctx.request)) return htmlResponse(403, { title: 'Refused', body: loginBody('Cross-site login refused.') });
        const now = Date.now();
        while (failures.length && failures[0]! < now - FAILURE_WINDOW_MS) failures.shift();
        if (failures.length >= MAX_FAILURES) {
          return htmlResponse(429, { title: 'Log in', body: loginBody('Too many failed logins; wait a minute.') }, { 'retry-after': '60' });
        }
        if (!sessions.checkToken(field(ctx.body, 'token'))) {
          failures.push(now);
          d.log('warn', 'dashboard login refused', {});
          return htmlResponse(401, { title: 'Log in', body: loginBody('Wrong admin token.') });
        }
        const { cookie } = sessions.issue();
        return redirect('/dashboard', { 'set-cookie': sessionCookie(cookie, isHttps(ctx.request), SESSION_TTL_MS / 1000) });
      }),
      hide,
    )
    .post(
      '/dashboard/logout',
      action((ctx) => redirect('/dashboard', { 'set-cookie': sessionCookie('', isHttps(ctx.request), 0) })),
      hide,
    )
    .get('/dashboard/accounts', view(accountsView), hide)
    .get('/dashboard/accounts/:id', view((ctx, s) => accountPage(s, ctx.params.id!, 200, { done: ctx.query.done })), hide)
    .post(
      '/dashboard/accounts/:id/keys',
      action(async (ctx, s) => {
        const mode = field(ctx.body, 'mode');
        if (!isMode(mode)) return accountPage(s, ctx.params.id!, 400, { error: 'mode must be test or live.' });
        if (!(await accountOf(ctx.params.id!))) return notFound('such account', s);
        const created = await d.repos.apiKeys.create({ accountId: ctx.params.id!, mode });
        return accountPage(s, ctx.params.id!, 200, { newKey: { key: created.key, mode } });
      }),
      hide,
    )
    .post(
      '/dashboard/accounts/:id/keys/:keyId/revoke',
      action(async (ctx, s) => {
        const { id, keyId } = ctx.params as { id: string; keyId: string };
        if (!ID_RE.test(keyId) || (await d.repos.apiKeys.accountOf(keyId)) !== id) return notFound('such key on this account', s);
        await d.repos.apiKeys.revoke(keyId);
        return redirect(`/dashboard/accounts/${encodeURIComponent(id)}?done=revoked`);
      }),
      hide,
    )
    .post(
      '/dashboard/accounts/:id/webhooks/:mode',
      action(async (ctx, s) => {
        const { id, mode } = ctx.params as { id: string; mode: string };
        if (!isMode(mode)) return notFound('such mode', s);
        if (!(await accountOf(id))) return notFound('such account', s);
        try {
          await setEndpoint(d.webhooks, { accountId: id, mode }, { url: field(ctx.body, 'url').trim() });
        } catch (e) {
          if (e instanceof AppError) return accountPage(s, id, HTTP_STATUS[e.code] ?? 400, { error: `${mode} endpoint: ${e.message}` });
          throw e;
        }
        return redirect(`/dashboard/accounts/${encodeURIComponent(id)}?done=endpoint`);
      }),
      hide,
    )
    .post(
      '/dashboard/accounts/:id/webhooks/:mode/reveal',
      action(async (ctx, s) => {
        const { id, mode } = ctx.params as { id: string; mode: string };
        if (!isMode(mode)) return notFound('such mode', s);
        if (!(await accountOf(id))) return notFound('such account', s);
        const e = await d.repos.endpoints.get(id, mode);
        if (!e) return accountPage(s, id, 404, { error: `No ${mode} endpoint is set.` });
        const previousUntil = e.previousSecret !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > Date.now() ? e.previousSecretExpiresAt : null;
        return accountPage(s, id, 200, { revealed: { mode, secret: e.secret, previousUntil } });
      }),
      hide,
    )
    .post(
      '/dashboard/accounts/:id/webhooks/:mode/rotate',
      action(async (ctx, s) => {
        const { id, mode } = ctx.params as { id: string; mode: string };
        if (!isMode(mode)) return notFound('such mode', s);
        if (!(await accountOf(id))) return notFound('such account', s);
        if (!(await d.repos.endpoints.get(id, mode))) return accountPage(s, id, 404, { error: `No ${mode} endpoint is set; set one first.` });
        await rotateSecret(d.webhooks, { accountId: id, mode });
        return redirect(`/dashboard/accounts/${encodeURIComponent(id)}?done=rotated`);
      }),
      hide,
    )
    .get(
      '/dashboard/intents',
      view(async (ctx, s) => {
        const q = ctx.query;
        const stateQ = INTENT_STATES.includes(q.state as IntentState) ? (q.state as IntentState) : undefined;
        const accountId = q.account && ID_RE.test(q.account) ? q.account : undefined;
        const mode = isMode(q.mode) ? q.mode : undefined;
        const startingAfter = q.starting_after && ID_RE.test(q.starting_after) ? q.starting_after : undefined;
        // The API's verb, as the operator: every account, or the one picked; the same paging.
        const { intents, hasMore } = await listIntents(d.services, { operator: true, accountId, mode }, { limit: PAGE_SIZE, startingAfter, state: stateQ });
        const f = { state: stateQ, accountId, mode };
        return htmlResponse(200, { title: 'Intents', csrf: s.csrf, active: 'intents', body: intentsBody(intents, hasMore, f, await d.repos.accounts.list()) });
      }),
      hide,
    )
    .get(
      '/dashboard/intents/:id',
      view(async (ctx, s) => {
        const id = ctx.params.id!;
        // Read before the intent: an event committed in between is then streamed as well as
        // shown, and the page's script drops the repeat (by event id); none can be missed.
        const afterSeq = await d.repos.liveEvents.maxSeq();
        const intent = ID_RE.test(id) ? await d.services.intents.get(id) : null;
        if (!intent) return notFound('such intent', s);
        const timeline = await intentTimeline(d.repos, intent.id);
        // The pay link and its QR: what a shop shows the payer (contract 12).
        const payUrl = payUrlOf(intent.payToken);
        const pay = payUrl === null ? null : { url: payUrl, qr: await qrSvg(payUrl) };
        const body = intentBody(intent, timeline, pay, intentStreamUrl(intent, afterSeq));
        return htmlResponse(200, { title: intent.id, csrf: s.csrf, active: 'intents', body, script: INTENT_LIVE_JS });
      }),
      hide,
    )
    .get(
      '/dashboard/live',
      view(async (ctx, s) => {
        const accounts = await d.repos.accounts.list();
        const q = ctx.query;
        // One account needs no choosing (the bootstrap case); with several the operator picks.
        const account = q.account ? await accountOf(q.account) : accounts.length === 1 ? accounts[0]! : null;
        if (q.account && !account) return notFound('such account', s);
        const mode = isMode(q.mode) ? q.mode : 'test';
        const snapshot = account ? await d.repos.liveEvents.snapshot(account.id, mode, LIVE_ROWS) : null;
        return htmlResponse(200, { title: 'Live view', csrf: s.csrf, active: 'live', body: liveBody({ accounts, account, mode, snapshot }), script: LIVE_JS });
      }),
      hide,
    )
    .get(
      '/dashboard/live/events',
      (async (ctx: Ctx) => {
        if (!sessions) return disabled();
        // An EventSource cannot follow a login redirect: a plain 401 makes it stop retrying.
        const s = sessionOf(ctx.request);
        if (!s) return plain(401, 'Log in to the dashboard first.');
        const q = ctx.query;
        if (!q.account || !(await accountOf(q.account))) return plain(404, 'No such account.');
        if (!isMode(q.mode)) return plain(400, 'mode must be test or live.');
        if (q.intent !== undefined && !ID_RE.test(q.intent)) return plain(400, 'intent must be an intent id.');
        // A reconnecting browser says where it stopped (Last-Event-ID); a new one starts where its page's snapshot did.
        const cursor = [ctx.request.headers.get('last-event-id'), q.after].find((v) => v !== null && v !== undefined && /^[0-9]{1,15}$/.test(v));
        const afterSeq = cursor === undefined ? await d.repos.liveEvents.maxSeq() : Number(cursor);
        const res = live.open({ accountId: q.account, mode: q.mode, intentId: q.intent ?? null, afterSeq, until: s.expiresAt, signal: ctx.request.signal });
        return res ?? plain(503, 'No live stream available (too many open, or the server is stopping); try again.', { 'retry-after': '5' });
      }),
      hide,
    )
    .get(
      '/dashboard/payments',
      view(async (ctx, s) => {
        const q = ctx.query;
        const status = PAYMENT_STATUSES.find((x) => x === q.status);
        const startingAfter = q.starting_after && ID_RE.test(q.starting_after) ? q.starting_after : undefined;
        // The API's verb, as the operator: every account's payments.
        const { payments, hasMore } = await listPayments(d.services, { operator: true }, { limit: PAGE_SIZE, startingAfter, status });
        const body = paymentsBody(payments, hasMore, status);
        return htmlResponse(200, { title: 'Payments', csrf: s.csrf, active: 'payments', body });
      }),
      hide,
    )
    .get(
      '/dashboard/deliveries',
      view((ctx, s) => deliveriesPage(ctx, s, 200)),
      hide,
    )
    .post(
      '/dashboard/deliveries/:id/retry',
      action(async (ctx, s) => {
        const id = ctx.params.id!;
        const owner = ID_RE.test(id) ? await d.repos.deliveries.owner(id) : null;
        if (!owner) return notFound('such delivery', s);
        try {
          // The operator may replay any account's delivery: the pro-plan gate is the API's.
          await retryDelivery(d.webhooks, owner, { id });
        } catch (e) {
          if (e instanceof AppError) return deliveriesPage(ctx, s, HTTP_STATUS[e.code] ?? 400, e.message);
          throw e;
        }
        d.wakeDispatcher();
        return redirect('/dashboard/deliveries?done=retried');
      }),
      hide,
    );

  async function deliveriesPage(ctx: Ctx, s: Session, status: number, error: string | null = null): Promise<Response> {
    const q = ctx.query;
    const st = q.status === 'pending' || q.status === 'delivered' || q.status === 'failed' ? q.status : undefined;
    const accountId = q.account && ID_RE.test(q.account) ? q.account : undefined;
    const startingAfter = q.starting_after && ID_RE.test(q.starting_after) ? q.starting_after : undefined;
    // The API's verb, as the operator: every account's deliveries, or the one picked.
    const { deliveries, hasMore } = await listDeliveries(d.webhooks, { operator: true, accountId }, { status: st, limit: PAGE_SIZE, startingAfter });
    const body: Safe = deliveriesBody(deliveries, hasMore, { status: st, accountId }, s.csrf, q.done, error);
    return htmlResponse(status, { title: 'Webhook deliveries', csrf: s.csrf, active: 'deliveries', body });
  }
}
