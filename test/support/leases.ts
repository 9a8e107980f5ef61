// Who holds what, read from the `leases` table of a PostgreSQL database (pg-design 9): each
// instance's heartbeat `instance:<owner>`, the 16 `shard:<n>` leases of live intents. For the
// failover test and bench: which running instance owns an intent's watch and deadline.
import type { SQL } from 'bun';
import { SHARDS, shardName, shardOf } from '../../src/actors/work-leases';
import type { Instance, Instances } from './instances';

export interface LeaseRow {
  name: string;
  owner: string;
  epoch: number;
}

/** Unexpired leases, judged by the database's clock as the instances judge them. */
export async function activeLeases(sql: SQL): Promise<LeaseRow[]> {
  const rows = await sql`SELECT name, owner, epoch::int AS epoch FROM leases
    WHERE expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint ORDER BY name`;
  return rows as LeaseRow[];
}

async function poll<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * Instances with their owner ids. Start them ONE at a time and call this after each: the one
 * heartbeat row whose owner is not known yet belongs to the instance just started.
 */
export class Owners {
  readonly byInstance = new Map<Instance, string>();
  constructor(private readonly sql: SQL) {}

  async learn(inst: Instance, timeoutMs = 30_000): Promise<string> {
    const known = new Set(this.byInstance.values());
    const owner = await poll(
      async () => {
        const fresh = (await activeLeases(this.sql)).filter((r) => r.name.startsWith('instance:') && !known.has(r.owner));
        if (fresh.length > 1) throw new Error(`several new instances at once: ${fresh.map((r) => r.owner).join(', ')}; start them one at a time`);
        return fresh[0]?.owner;
      },
      timeoutMs,
      `the heartbeat lease of instance ${inst.name}`,
    );
    this.byInstance.set(inst, owner);
    return owner;
  }

  /** Start `count` instances on `cluster`, one at a time, learning each owner id. */
  async addAll(cluster: Instances, count: number): Promise<void> {
    for (const inst of cluster.all) if (!this.byInstance.has(inst)) await this.learn(inst);
    while (cluster.all.length < count) await this.learn(await cluster.add());
  }

  instanceOf(owner: string | undefined): Instance | undefined {
    return [...this.byInstance].find(([, o]) => o === owner)?.[0];
  }

  /** Shard name -> owner once all 16 are held by live instances, none above its fair share. */
  async settled(instances: number, timeoutMs = 60_000): Promise<Map<string, string>> {
    return poll(
      async () => {
        const rows = (await activeLeases(this.sql)).filter((r) => r.name.startsWith('shard:'));
        const per = new Map<string, number>();
        for (const r of rows) per.set(r.owner, (per.get(r.owner) ?? 0) + 1);
        const ok = rows.length === SHARDS && per.size === instances && [...per.values()].every((n) => n <= Math.ceil(SHARDS / instances));
        return ok ? new Map(rows.map((r) => [r.name, r.owner])) : undefined;
      },
      timeoutMs,
      `the ${SHARDS} shards spread over ${instances} instances`,
    );
  }

  /** The instance holding the intent's shard in `shards` (from settled()). */
  ownerOfIntent(shards: Map<string, string>, intentId: string): Instance {
    const name = shardName(shardOf(intentId));
    const inst = this.instanceOf(shards.get(name));
    if (!inst) throw new Error(`no known instance holds ${name} (owner ${shards.get(name)})`);
    return inst;
  }
}

export const shardOfIntent = (intentId: string): string => shardName(shardOf(intentId));
