// The SQLite instance lease (contract 14): which `serve` holds this database file, in the
// `instance_leases` table (one row, name 'serve'). Taken and checked in one IMMEDIATE
// transaction, so two processes starting at once cannot both win.
import type { Database } from 'bun:sqlite';

export interface LeaseHolder {
  instanceId: string;
  pid: number;
  host: string;
  startedAt: number;
  heartbeatAt: number;
}

type Row = { owner: string; pid: number; host: string; started_at: number; heartbeat_at: number };

const NAME = 'serve';

const holderOf = (r: Row): LeaseHolder => ({
  instanceId: r.owner, pid: r.pid, host: r.host, startedAt: r.started_at, heartbeatAt: r.heartbeat_at,
});

/**
 * Take the lease for `me`, unless another instance holds it and `gone(holder)` says it is still
 * there. A holder that is gone is replaced (`previous` names it, for the log).
 */
export function takeInstanceLease(
  sqlite: Database,
  me: Omit<LeaseHolder, 'heartbeatAt'>,
  now: number,
  leaseMs: number,
  gone: (holder: LeaseHolder) => boolean,
): { taken: true; previous: LeaseHolder | null } | { taken: false; holder: LeaseHolder } {
  return sqlite.transaction(() => {
    const r = sqlite.query<Row, [string]>('SELECT owner, pid, host, started_at, heartbeat_at FROM instance_leases WHERE name = ?').get(NAME);
    const previous = r ? holderOf(r) : null;
    if (previous && previous.instanceId !== me.instanceId && !gone(previous)) {
      return { taken: false as const, holder: previous };
    }
    sqlite
      .query(
        `INSERT INTO instance_leases (name, owner, pid, host, started_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host,
           started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`,
      )
      .run(NAME, me.instanceId, me.pid, me.host, me.startedAt, now, now + leaseMs);
    return { taken: true as const, previous };
  }).immediate();
}

/** Renew the lease; false when this instance no longer holds it (another took it over). */
export function renewInstanceLease(sqlite: Database, instanceId: string, now: number, leaseMs: number): boolean {
  return (
    sqlite.query('UPDATE instance_leases SET heartbeat_at = ?, expires_at = ? WHERE name = ? AND owner = ?').run(now, now + leaseMs, NAME, instanceId)
      .changes === 1
  );
}

/** Give the lease up at a clean stop, so the next `serve` starts at once. */
export function releaseInstanceLease(sqlite: Database, instanceId: string): void {
  sqlite.query('DELETE FROM instance_leases WHERE name = ? AND owner = ?').run(NAME, instanceId);
}
