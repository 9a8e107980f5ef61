// Who does the live work (contract 13, pg-design 9): live intents are split in 16 shards by a
// stable hash of their id (`shard:<n>`), detection is one lease per chain (`detect:<chain>`), and
// each instance holds some of these leases in the database. An instance arms deadlines, follows
// chain watches and scans for payments only for what it holds; every write made for that work
// carries the lease's (name, epoch) and checks it in its own transaction (fencing), so a holder
// that was taken over (a long pause, a partition) cannot write over its successor.
//
// Each instance also holds `instance:<id>`, its heartbeat: the live instances are counted from
// those rows and each takes its fair share, ceil(leases / instances), of each pool. One holding
// more than its share gives ONE away per look (slow rebalancing, no thundering herd); one holding
// less takes free or expired ones. On SQLite the one serve is the only instance: it holds every
// lease through the same code.
//
// Timing, with L = cluster.leaseSeconds (default 10 s):
//   lease TTL        = 2/3 L (6.7 s)   a dead holder's leases are free at most this long after its
//                                      last renewal (its heartbeat row expires with them);
//   renew every      = 1/3 L (3.3 s)   two renewals per TTL: one missed renewal loses nothing;
//   look every       = 1/6 L (1.7 s)   a survivor sees them free at most TTL + L/6 = 5/6 L (8.3 s)
//                                      after the holder's last renewal, which leaves L/6 for the
//                                      take itself and the resync of the shard: within L.
// A holder that cannot renew stops the work itself once TTL has passed since it SENT its last
// successful renewal (the database extended it later than that, so it stops before anyone else
// can take over); fencing covers the writes already under way.
import type { Log } from '../log';
import type { Held, LeaseStore } from '../store/leases';

export const SHARDS = 16;
// The names made once: the runtime asks for an intent's shard lease twice per create.
const SHARD_NAMES = Array.from({ length: SHARDS }, (_, n) => `shard:${n}`);
export const shardName = (n: number): string => SHARD_NAMES[n] ?? `shard:${n}`;
export const detectName = (chain: string): string => `detect:${chain}`;
const INSTANCE = 'instance:';
/** Heartbeat rows of instances gone this long are deleted (the other rows are kept: their epochs must only grow). */
const SWEEP_AFTER_MS = 3_600_000;

/** The fencing token a leased write carries. */
export type Fence = Held;

/** The shard of an intent: FNV-1a of its id, the same in every instance and every version. */
export function shardOf(intentId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < intentId.length; i++) {
    h ^= intentId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SHARDS;
}

export interface WorkLeasesOptions {
  store: LeaseStore;
  /** This instance's id (the owner written in the rows). */
  owner: string;
  /** Chains detection runs on (one `detect:<chain>` lease each). */
  chains: readonly string[];
  leaseSeconds: number;
  log: Log;
  /** Leases just taken: start their work now (resync the shard, start the chain's detector). */
  onGained?: (gained: Fence[]) => void;
  /** Leases lost or given away: stop their work at once. */
  onLost?: (names: string[]) => void;
  /** Monotonic milliseconds (for this instance's own view of when its leases run out). */
  clock?: () => number;
}

export interface WorkLeases {
  readonly owner: string;
  /** Join: the heartbeat and a first share of the leases, before boot reads the live rows. */
  start(): Promise<void>;
  /** The fence for `name` when this instance holds it, else null. */
  fence(name: string): Fence | null;
  fenceForIntent(intentId: string): Fence | null;
  fenceForChain(chain: string): Fence | null;
  /** Names held now (the heartbeat excluded). */
  held(): string[];
  /** One look now (tests; the timer does it every L/6). */
  look(): Promise<void>;
  /** Clean stop: stop the work and give every lease up, so others take over at once. */
  stop(): Promise<void>;
  /** Stop the timer and give nothing up, as a crash would (tests). */
  halt(): void;
}

interface Mine extends Held {
  /** clock() after which this instance no longer counts on it (TTL from the send of its last renewal). */
  validUntil: number;
  /** The fencing token fence() hands out for it (one per take, not one per call). */
  token: Fence;
}

export function createWorkLeases(o: WorkLeasesOptions): WorkLeases {
  const L = o.leaseSeconds * 1000;
  const ttlMs = Math.round((2 * L) / 3);
  const renewMs = L / 3;
  const lookMs = L / 6;
  const clock = o.clock ?? (() => performance.now());
  const me = `${INSTANCE}${o.owner}`;
  const pools = [Array.from({ length: SHARDS }, (_, n) => shardName(n)), [...new Set(o.chains)].map(detectName)];
  const mine = new Map<string, Mine>();
  let lastRenew = -Infinity;
  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let sweptAt = -Infinity;

  const lose = (names: string[], why: string, level: 'info' | 'warn' = 'warn') => {
    if (names.length === 0) return;
    for (const n of names) mine.delete(n);
    o.log(level, 'work leases given up or lost; their work stops here', { owner: o.owner, leases: names, why });
    o.onLost?.(names.filter((n) => n !== me));
  };

  const gain = (taken: Held[], sent: number) => {
    for (const h of taken) mine.set(h.name, { ...h, validUntil: sent + ttlMs, token: Object.freeze({ name: h.name, epoch: h.epoch }) });
    const work = taken.filter((h) => h.name !== me);
    if (work.length > 0) {
      o.log('info', 'work leases taken', { owner: o.owner, leases: work.map((h) => `${h.name}@${h.epoch}`) });
      o.onGained?.(work);
    }
  };

  async function renew(): Promise<void> {
    const t = clock();
    lose([...mine.values()].filter((m) => t >= m.validUntil).map((m) => m.name), 'not renewed within the lease TTL');
    if (t - lastRenew < renewMs - lookMs / 2) return;
    const list = [...mine.values()].map(({ name, epoch }) => ({ name, epoch }));
    const kept = new Set(await o.store.renew(list, o.owner, ttlMs));
    lastRenew = t;
    for (const h of list) {
      const m = mine.get(h.name);
      if (m && kept.has(h.name)) m.validUntil = t + ttlMs;
    }
    lose(list.filter((h) => !kept.has(h.name) && mine.get(h.name)?.epoch === h.epoch).map((h) => h.name), 'taken over by another instance');
  }

  async function balance(): Promise<void> {
    if (!mine.has(me)) {
      const t = clock();
      gain(await o.store.take([me], o.owner, ttlMs), t);
    }
    const active = await o.store.active('');
    const owners = new Map(active.map((r) => [r.name, r.owner]));
    const instances = Math.max(1, active.filter((r) => r.name.startsWith(INSTANCE)).length);
    for (const pool of pools) {
      if (pool.length === 0 || stopped) continue;
      const share = Math.ceil(pool.length / instances);
      const held = pool.filter((n) => mine.has(n));
      if (held.length > share) {
        // Stop the work first, then free the row: nobody can take it while this instance still works on it.
        const give = mine.get(held[held.length - 1]!)!;
        lose([give.name], `rebalancing: ${held.length} held, fair share ${share} of ${instances} instances`, 'info');
        await o.store.release([{ name: give.name, epoch: give.epoch }], o.owner);
      } else if (held.length < share) {
        const free = pool.filter((n) => !owners.has(n));
        // A random pick spreads instances that look at the same moment over different rows.
        for (let i = free.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [free[i], free[j]] = [free[j]!, free[i]!];
        }
        const t = clock();
        gain(await o.store.take(free.slice(0, share - held.length), o.owner, ttlMs), t);
      }
    }
    if (clock() - sweptAt > SWEEP_AFTER_MS) {
      sweptAt = clock();
      await o.store.sweep(INSTANCE, SWEEP_AFTER_MS);
    }
  }

  const look = (): Promise<void> => {
    // One look at a time: a slow database must not stack them up.
    running ??= (async () => {
      try {
        await renew();
        if (!stopped) await balance();
      } catch (e) {
        o.log('warn', 'work lease look failed; retrying', { owner: o.owner, error: String(e) });
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const fence = (name: string): Fence | null => {
    const m = mine.get(name);
    return m && clock() < m.validUntil ? m.token : null;
  };

  return {
    owner: o.owner,
    async start() {
      stopped = false;
      await look();
      timer ??= setInterval(() => void look(), lookMs);
      timer.unref?.();
    },
    fence,
    fenceForIntent: (id) => fence(shardName(shardOf(id))),
    fenceForChain: (chain) => fence(detectName(chain)),
    held: () => [...mine.keys()].filter((n) => n !== me),
    look,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      const all = [...mine.values()].map(({ name, epoch }) => ({ name, epoch }));
      lose(all.map((h) => h.name).filter((n) => n !== me), 'clean stop', 'info');
      mine.clear();
      try {
        await o.store.release(all, o.owner);
      } catch (e) {
        o.log('warn', 'giving the work leases up failed; others take them over once they expire', { owner: o.owner, error: String(e) });
      }
    },
    halt() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
