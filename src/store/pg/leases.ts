// Leases on PostgreSQL (pg-design 9; the model and the why: src/store/leases.ts). Expiry is judged
// by the DATABASE clock (now()), so instances whose clocks disagree still agree on who holds what.
// Takes lock their rows in name order (sorted, deduplicated) so two instances taking overlapping
// sets cannot deadlock.
import type { SQL } from 'bun';
import type { Held, LeaseRow, LeaseStore } from '../leases';

type Row = { name: string; owner: string; epoch: string | number; expires_at: string | number };

const like = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const sorted = (held: readonly Held[]) => [...held].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** `sql`: the pool, or a transaction's handle (`check` must run on the transaction it fences). */
export function createPgLeaseStore(sql: SQL): LeaseStore {
  return {
    async take(names, owner, ttlMs) {
      const unique = [...new Set(names)].sort();
      if (unique.length === 0) return [];
      const rows: Row[] = await sql`
        INSERT INTO leases (name, owner, epoch, expires_at)
        SELECT n, ${owner}, 1, (extract(epoch from now()) * 1000)::bigint + ${ttlMs}::bigint
          FROM unnest(${sql.array(unique, 'TEXT')}::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i
        ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, epoch = leases.epoch + 1, expires_at = excluded.expires_at
        WHERE leases.expires_at < (extract(epoch from now()) * 1000)::bigint
        RETURNING name, epoch`;
      return rows.map((r) => ({ name: r.name, epoch: Number(r.epoch) }));
    },
    async renew(held, owner, ttlMs) {
      if (held.length === 0) return [];
      const h = sorted(held);
      const rows: Array<{ name: string }> = await sql`
        UPDATE leases AS l SET expires_at = (extract(epoch from now()) * 1000)::bigint + ${ttlMs}::bigint
          FROM unnest(${sql.array(h.map((x) => x.name), 'TEXT')}::text[], ${sql.array(h.map((x) => x.epoch), 'BIGINT')}::bigint[]) AS h(name, epoch)
         WHERE l.name = h.name AND l.epoch = h.epoch AND l.owner = ${owner}
        RETURNING l.name`;
      return rows.map((r) => r.name);
    },
    async release(held, owner) {
      if (held.length === 0) return;
      const h = sorted(held);
      await sql`
        UPDATE leases AS l SET expires_at = (extract(epoch from now()) * 1000)::bigint - 1
          FROM unnest(${sql.array(h.map((x) => x.name), 'TEXT')}::text[], ${sql.array(h.map((x) => x.epoch), 'BIGINT')}::bigint[]) AS h(name, epoch)
         WHERE l.name = h.name AND l.epoch = h.epoch AND l.owner = ${owner}`;
    },
    async active(prefix): Promise<LeaseRow[]> {
      const rows: Row[] = await sql`
        SELECT name, owner, epoch, expires_at FROM leases
         WHERE name LIKE ${like(prefix)} AND expires_at >= (extract(epoch from now()) * 1000)::bigint ORDER BY name`;
      return rows.map((r) => ({ name: r.name, owner: r.owner, epoch: Number(r.epoch), expiresAt: Number(r.expires_at) }));
    },
    async check(name, epoch, owner) {
      // FOR SHARE: a takeover (an UPDATE of this row) waits until the fenced write commits or
      // rolls back, so the write either lands before the new holder starts or sees the new epoch.
      const rows = await sql`SELECT 1 AS x FROM leases WHERE name = ${name} AND epoch = ${epoch}::bigint AND owner = ${owner} FOR SHARE`;
      return rows.length > 0;
    },
    async sweep(prefix, olderThanMs) {
      const rows = await sql`
        DELETE FROM leases WHERE name LIKE ${like(prefix)}
           AND expires_at < (extract(epoch from now()) * 1000)::bigint - ${olderThanMs}::bigint RETURNING name`;
      return rows.length;
    },
  };
}
