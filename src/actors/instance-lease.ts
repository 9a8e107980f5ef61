// One `payforge serve` per SQLite file (contract 14): the running instance holds a lease row with
// a heartbeat; a second one, whatever path it was given to the same file (the row lives in the
// file), refuses to start with a message naming the holder. A holder that died without releasing
// is taken over once its heartbeat is older than cluster.leaseSeconds (at once when it ran on
// this host and its process is gone). On PostgreSQL many
// instances share the database (contract 13): no lease is taken here.
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Config } from '../config.types';
import type { Log } from '../log';
import type { LeaseHolder } from '../store/instance-lease';
import { sqliteOf, type Store } from '../store/store';

export interface InstanceLease {
  instanceId: string;
  /** Stop the heartbeat and release the lease (clean stop). */
  release(): void;
}

export class InstanceInUseError extends Error {
  constructor(
    message: string,
    readonly holder: LeaseHolder,
  ) {
    super(message);
  }
}


/**
 * A holder on this host whose process no longer exists (killed, crashed) need not be waited for.
 * Any doubt (another host, a pid we may not signal) means alive: the heartbeat decides then.
 */
function deadHere(h: LeaseHolder): boolean {
  if (h.host !== hostname() || h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === 'ESRCH';
  }
}

/** Take the lease or throw InstanceInUseError; `onLost` runs if another instance takes it over later. */
export function holdInstanceLease(store: Store, config: Config, log: Log, onLost: () => void, now: () => number = Date.now): InstanceLease | null {
  // Only a SQLite file has one serve; on PostgreSQL many share the database.
  const leases = sqliteOf(store)?.instanceLease;
  if (!leases) return null;
  const staleMs = config.cluster.leaseSeconds * 1000;
  const me = { instanceId: `inst_${crypto.randomUUID()}`, pid: process.pid, host: hostname(), startedAt: now() };
  const got = leases.take(me, now(), staleMs, (h) => h.heartbeatAt <= now() - staleMs || deadHere(h));
  const file = config.db === ':memory:' ? config.db : realpathSync(config.db);
  if (!got.taken) {
    const h = got.holder;
    const ago = Math.max(0, Math.round((now() - h.heartbeatAt) / 1000));
    throw new InstanceInUseError(
      `the database ${file} is in use by another payforge serve (pid ${h.pid} on host ${h.host}, started ${new Date(h.startedAt).toISOString()}, ` +
        `last heartbeat ${ago}s ago). Stop that instance first; one that died without stopping is taken over ${config.cluster.leaseSeconds}s after its last heartbeat.`,
      h,
    );
  }
  if (got.previous && got.previous.instanceId !== me.instanceId) {
    log('warn', 'took over the instance lease of a serve that is gone (process dead, or no heartbeat for cluster.leaseSeconds)', {
      db: file, previous_pid: got.previous.pid, previous_host: got.previous.host,
      previous_started_at: new Date(got.previous.startedAt).toISOString(), previous_heartbeat_at: new Date(got.previous.heartbeatAt).toISOString(),
    });
  }
  // Renewed three times per lease period: a missed beat or two (a long GC, a busy disk) is no takeover.
  const timer = setInterval(() => {
    try {
      if (leases.renew(me.instanceId, now(), staleMs)) return;
      clearInterval(timer);
      log('error', 'instance lease lost: another serve took this database over; stopping', { db: file, instance_id: me.instanceId });
      onLost();
    } catch (e) {
      log('warn', 'instance lease heartbeat failed; retrying', { error: String(e) });
    }
  }, Math.max(100, staleMs / 3));
  timer.unref?.();
  return {
    instanceId: me.instanceId,
    release() {
      clearInterval(timer);
      try {
        leases.release(me.instanceId);
      } catch (e) {
        log('warn', 'releasing the instance lease failed; the next serve takes it over once it is stale', { error: String(e) });
      }
    },
  };
}
