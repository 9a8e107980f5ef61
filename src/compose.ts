// The composition root: builds every part from the config on one Store (SQLite or PostgreSQL),
// without listening. src/server.ts adds the HTTP listener; tests use this directly with app.handle().
import { createChainWatch } from './actors/chain-watch';
import { createRuntime, type Runtime } from './actors/runtime';
import { createWorkLeases, shardName, shardOf, type WorkLeases } from './actors/work-leases';
import { apiPlugin } from './api/app';
import { authenticate, isThenable } from './api/auth';
import { createRateLimiter } from './web/rate-limit';
import { createWebApp } from './web/app';
import { dashboardPlugin } from './dashboard/index';
import { createEvmAdapter } from './chains/evm/adapter';
import { createChainRegistry } from './chains/registry';
import { createSolanaAdapter } from './chains/solana/adapter';
import type { ChainAdapter } from './chains/types';
import type { Config } from './config.types';
import type { Caller } from './domain/caller';
import { AppError } from './domain/errors';
import type { ChainFamily } from './domain/intent';
import { startDetectors, type Detection } from './intents/detect-payments';
import { reconcileSubmissions } from './intents/record-submission';
import { recordLandedAfterClose } from './intents/record-landed-after-close';
import type { Services, SubmitFaults } from './intents/services';
import { createScreener } from './screening/screener';
import { webhookServices } from './webhooks/services';
import { getPublicUrl, setPublicUrl } from './domain/pay-url';
import { registerAccountNames } from './domain/account-names';
import { payPlugin } from './pay/index';
import { openStore, sqliteOf, type Store } from './store/store';
import { inTurn, type WriteGate } from './store/write-gate';
import type { IdempotencyRepo } from './store/idempotency';
import type { StoredIntent } from './store/intents';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher';
import { startDispatcherThread } from './webhooks/dispatcher-thread';
import { createAccountNames } from './actors/account-names';
import { renderMetrics } from './metrics';
import { createLogger, levelsFrom, type Log } from './log';
import { statesTagged } from '../machines/judge';

export interface CoreOptions {
  /** Replace chain adapters (never in production; tests use the real ones). */
  adapters?: Partial<Record<ChainFamily, ChainAdapter>>;
  inspect?: Parameters<typeof createRuntime>[0]['inspect'];
  log?: Log;
  /** Test-only fault injection in submit (never reachable from config or HTTP). */
  faults?: SubmitFaults;
  /**
   * Run the webhook dispatcher on a thread of its own with its own connection (serve does;
   * src/webhooks/dispatcher-thread.ts). Without it, or on a `:memory:` database (private to its
   * one connection), it runs on the event loop.
   */
  dispatcherThread?: boolean;
  /**
   * Write creates on a thread of their own with its own connection (serve does; SQLite files only:
   * src/store/intent-writer.ts). Without it, on `:memory:` or PostgreSQL, creates are written
   * like every other write.
   */
  writerThread?: boolean;
}

/**
 * SQLite with threads writing beside the event loop: a create's idempotency claim and release
 * (autocommit statements on the event loop's connection, outside any write) take the write turn
 * first, without blocking (write-gate.ts inTurn).
 */
const claimsInTurn = (repo: IdempotencyRepo, gate: WriteGate): IdempotencyRepo => ({
  ...repo,
  claim: (accountId, mode, key) => inTurn(gate, () => repo.claim(accountId, mode, key)).then((held) => held),
  release: (accountId, mode, key) => inTurn(gate, () => repo.release(accountId, mode, key)).then(() => {}),
});

/** How often `sending` submissions left by a failed commit are applied as sent. */
const RECONCILE_INTERVAL_MS = 2_000;

export async function createCore(config: Config, opts: CoreOptions = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  // This instance's id: the owner of its claims and work leases, and of its heartbeat row.
  const instanceId = `inst_${crypto.randomUUID()}`;
  const store: Store = await openStore(config, { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log, instanceId, writerThread: opts.writerThread });
  const intentWriter = sqliteOf(store)?.intentWriter ?? null;
  const repos = store.repos;
  const { intents, submissions } = repos;
  const chains = createChainRegistry(config, { solana: createSolanaAdapter({ log }), evm: createEvmAdapter({ log }), ...opts.adapters });
  const screener = createScreener(config.screening);
  const inlineDispatcher = () => createDispatcher({ dispatch: repos.dispatch, durable: () => store.durable(), config, log });
  // On SQLite the thread needs the server's write gate (a file with its WAL synced by this process).
  const gate = sqliteOf(store)?.writeGate ?? null;
  const dispatcher: Dispatcher =
    opts.dispatcherThread && (store.engine === 'postgres' || gate !== null)
      ? startDispatcherThread({
          db: config.db,
          gate: gate?.buffer ?? null,
          config,
          log,
          levels: levelsFrom(config.logLevel),
          fallback: inlineDispatcher,
        })
      : inlineDispatcher();
  let runtime: Runtime;
  const reportFault = opts.faults?.chainReport;
  const failCommit = () => {
    const sqlite = sqliteOf(store);
    if (!sqlite) throw new Error('failCommit: a SQLite-only test fault');
    sqlite.failThisCommit();
  };
  let services: Services;
  let detection: Detection | null = null;
  // Live work by lease (issue 12): from boot on, this instance follows only the shards and the
  // chains it holds; before it (tests that drive a core without booting it) it follows everything.
  let joined = false;
  const heldChains = () => new Set([...chains.networks.keys()].filter((c) => work.fenceForChain(c) !== null));
  const followDetection = () => void detection?.follow(heldChains()).catch((e) => log('error', 'starting or stopping detection failed', { error: String(e) }));
  /** Recorded transactions of intents that closed unpaid within the look-back stay in sight (those of `owned` intents). */
  const followClosed = async (owned: (intentId: string) => boolean) => {
    const since = Date.now() - config.detection.lookbackSeconds * 1000;
    for (const chain of chains.networks.keys()) chainWatch.sync((await intents.listClosedWithTransaction(chain, since)).filter((r) => owned(r.id)));
  };
  const work: WorkLeases = createWorkLeases({
    store: repos.leases,
    owner: instanceId,
    chains: [...chains.networks.keys()],
    leaseSeconds: config.cluster.leaseSeconds,
    log,
    onGained(gained) {
      const shards = new Set(gained.map((g) => g.name).filter((n) => n.startsWith('shard:')));
      if (shards.size > 0 && joined) {
        // A shard just taken is read now, not at the next periodic scan: its deadlines may be due.
        const mine = (id: string) => shards.has(shardName(shardOf(id)));
        runtime
          .resync()
          .then(() => followClosed(mine))
          .catch((e) => log('error', 'reading a newly leased shard failed; the periodic scan reads it again', { error: String(e) }));
      }
      followDetection();
    },
    onLost(names) {
      const lost = new Set(names);
      // Asked as each pass reaches an intent (a chunk per turn of the event loop): a shard taken
      // back meanwhile is followed again by its resync, and those passes must not undo that.
      const gone = (id: string) => lost.has(shardName(shardOf(id))) && work.fenceForIntent(id) === null;
      const dropped = (what: string) => (e: unknown) => log('error', `dropping the intents of a lost shard (${what}) failed`, { error: String(e) });
      runtime.dropWhere(gone).catch(dropped('deadlines'));
      chainWatch.dropWhere(gone).catch(dropped('chain watches'));
      followDetection();
    },
  });
  const liveWork = () => (joined ? work : null);
  const chainWatch = createChainWatch(chains, () => runtime, {
    work: liveWork,
    log: (msg, f) => log('warn', msg, f),
    onReportWrite: reportFault && ((o) => reportFault(o, { failCommit })),
    lookbackMs: config.detection.lookbackSeconds * 1000,
    onLandedAfterClose: (row, landed, commitment) => recordLandedAfterClose(services, row, landed, commitment),
  });
  runtime = createRuntime({
    transact: (fn, opts) => store.transact(fn, opts),
    intents,
    onDeliveriesQueued: (dueFrom) => dispatcher.wake(dueFrom),
    onCommitted: (rows, full, accounts, newer) => {
      if (!full) return chainWatch.sync(rows);
      // Every live intent's account is named before any of its events is rendered (boot, another instance's new account).
      void names.ensure([...(accounts ?? rows.map((r) => r.accountId))]);
      return chainWatch.syncAll(rows, newer);
    },
    inspect: opts.inspect,
    holdExpiry: (id, tx) => tx.submissions.hasSending(id),
    log,
    work: liveWork,
    changedElsewhere: sqliteOf(store)?.changedElsewhere,
    writer: () => intentWriter,
  });
  services = {
    config, runtime, intents, idempotency: gate ? claimsInTurn(repos.idempotency, gate) : repos.idempotency, chains, screener,
    submissions, log, faults: opts.faults, payments: repos.payments, detection: repos.detection,
  };
  const failed = (e: unknown) => log('error', 'submission reconciliation failed', { error: String(e) });
  /** Settles once its writes are queued (not applied: they are logged when they are). */
  const reconcile = () =>
    reconcileSubmissions(services)
      .then(({ applied }) => void applied.then((n) => n > 0 && log('warn', 'submissions reconciled as sent', { count: n })).catch(failed))
      .catch(failed);
  let reconcileTimer: ReturnType<typeof setInterval> | null = null;
  const limiter = createRateLimiter(config.rateLimit.perSecond, config.rateLimit.burst);
  let ready = false;
  const atClose: Array<() => void> = [];
  // The caller resolved in onRequest, per request object: one key lookup per request.
  const callers = new WeakMap<Request, Caller>();
  /** Record the key's use and take its rate token (429 when none is left). */
  const take = (caller: Caller): void => {
    keyUses.set(caller.keyId, Date.now());
    const wait = limiter.take(caller.keyId);
    if (wait > 0) {
      throw new AppError('rate_limit.exceeded', 'Too many requests for this API key; slow down.', { details: { retry_after: wait } });
    }
  };
  // The webhook verbs' services, the same for the API and the dashboard.
  const webhooks = webhookServices(repos, config);
  // Key use is remembered in memory and flushed every 30 s: `keys list` shows lastUsedAt
  // without a durable write on every request's path.
  const keyUses = new Map<string, number>();
  const flushKeyUses = async () => {
    if (keyUses.size === 0) return;
    const uses = new Map(keyUses);
    keyUses.clear();
    try {
      await repos.apiKeys.touch(uses);
    } catch (e) {
      log('warn', 'recording key use failed', { error: String(e) });
    }
  };
  const keyUseTimer = setInterval(() => void flushKeyUses(), 30_000);
  keyUseTimer.unref?.();
  const stopHooks: Array<() => void> = [];
  const endStreams = () => {
    for (const fn of stopHooks) fn();
  };

  // The merchant name wallets show (paymentUri's Solana Pay label), the same in every rendering:
  // src/actors/account-names.ts keeps the lookup synchronous over an asynchronous store.
  const names = createAccountNames(repos.accounts, log);
  await names.load();
  const unregisterNames = registerAccountNames(names.get);
  setPublicUrl(config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`);

  // (Made once, not per request: each authenticated request would otherwise allocate both.)
  const findKey = (hash: string) => repos.apiKeys.findActiveByHash(hash);
  function admit(request: Request, caller: Caller): void | Promise<void> {
    callers.set(request, caller);
    // An account created since boot (by the CLI, or another instance) is named before its intents render.
    if (!names.has(caller.accountId)) return names.ensure([caller.accountId]).then(() => take(caller));
    take(caller);
  }

  // The web surfaces are siblings, each a named plugin in one shell (request ids, the error
  // envelope): the API, the operator's dashboard, and the payment page with its own per-token
  // rate limit. None imports another; what they share is verbs, the store and src/web.
  const app = createWebApp({ log, rpcRetryAfterSeconds: config.rpc.retryAfterSeconds })
    .use(
      apiPlugin({
        services,
        webhooks,
        // Every authenticated request takes a rate token here, before its body is parsed or
        // validated: malformed requests count against the key exactly like valid ones.
        // Synchronous when the key look-up is (SQLite) and the account is already named: no
        // promise on every request's path (a throw is the same answer as a rejection).
        checkKey(request) {
          const found = authenticate(request.headers.get('authorization'), findKey);
          return isThenable(found) ? Promise.resolve(found).then((caller) => admit(request, caller)) : admit(request, found);
        },
        caller(request) {
          const caller = callers.get(request);
          if (!caller) throw new AppError('auth.invalid_api_key', 'Provide a valid API key as "Authorization: Bearer pk_test_..." or "pk_live_...".');
          return caller;
        },
        wakeDispatcher: () => dispatcher.wake(),
        ready: () => ready,
        ping: () => store.ping(),
        metrics: () => renderMetrics({ runtime, commits: sqliteOf(store)?.commitStats ?? null, deliveries: repos.deliveries, dispatcher, chainWatch, chains }),
        log,
      }),
    )
    .use(dashboardPlugin({ services, repos, webhooks, beforeStop: (fn) => void stopHooks.push(fn), wakeDispatcher: () => dispatcher.wake(), log }))
    .use(
      payPlugin({
        services,
        findByPayToken: async (token) => (await intents.findByPayToken(token)) as (StoredIntent & { payToken: string }) | null,
        merchantName: async (accountId) => (await repos.accounts.get(accountId))?.name ?? 'Merchant',
        publicUrl: getPublicUrl,
        limiter: createRateLimiter(config.rateLimit.perSecond, config.rateLimit.burst),
      }),
    );

  return {
    config,
    store,
    app,
    services,
    runtime,
    dispatcher,
    chainWatch,
    /** The work leases this instance holds (issue 12). */
    work,
    log,
    /** End the surfaces' endless responses (before a graceful HTTP stop, which waits for them). */
    endStreams,
    /** null, or a promise that settles once every commit so far is on disk: responses wait on it. */
    durable: () => store.durable(),
    /** Run `f` as the last write at stop, once nothing else of this instance can write. */
    atClose(f: () => void): void {
      atClose.push(f);
    },
    /** Rehydrate live intents (expiring overdue ones), start the dispatcher. */
    async boot(): Promise<number> {
      // SQLite: this is the file's one serve; what a killed predecessor held is free at once.
      sqliteOf(store)?.forgetPredecessors(instanceId);
      // Queued before any deadline can fire: a transaction recorded before a crash is applied
      // as sent first, so its intent goes pending (and gets pendingAtExpiry), never expired.
      // Awaited: the rows are gone over a chunk per turn (not their writes: those commit later).
      await reconcile();
      reconcileTimer = setInterval(() => void reconcile(), RECONCILE_INTERVAL_MS);
      reconcileTimer.unref?.();
      // Join: the heartbeat and a first share of the work leases (on SQLite: every one) before the rows are read.
      await work.start();
      joined = true;
      const n = await runtime.rehydrateLive();
      await followClosed((id) => work.fenceForIntent(id) !== null);
      await dispatcher.ready?.();
      // Creates go to the writer thread once it has its connection (the event loop writes them before).
      await intentWriter?.ready();
      dispatcher.start();
      detection = startDetectors(services, (msg, f) => log('warn', msg, f), work);
      followDetection();
      ready = true;
      log('info', 'booted', { live_intents: n });
      return n;
    },
    async stop(): Promise<void> {
      ready = false;
      endStreams();
      clearInterval(keyUseTimer);
      if (reconcileTimer) clearInterval(reconcileTimer);
      await flushKeyUses();
      await dispatcher.stop();
      await detection?.stop();
      await chainWatch.stop();
      runtime.stop();
      // Nothing of this instance works on them any more: others take them over at once.
      await work.stop();
      // Last writes of this instance (the instance lease's release), committed and synced like any other.
      await Promise.all(
        atClose.map((f) => store.transact(async () => f()).catch((e) => log('warn', 'a last write at stop failed', { error: String(e) }))),
      );
      names.stop();
      unregisterNames();
      // Commits what is still queued, waits for its sync, then closes the database.
      await store.close();
    },
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
