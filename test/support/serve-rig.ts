// What the end-to-end files that run real `payforge serve` processes on one database set up: a
// fresh database of the engine under test, a webhook receiver, a raw SQL handle on the database,
// and every serve started, so that none outlives the file: after its tests each is killed (-9, it
// may be mid-send), its exit awaited, and only then the handle, the receiver and the database go.
import { startServe } from './cli';
import { rawSql, type RawSql } from './raw-sql';
import { startReceiver, type Receiver } from './receiver';
import { freshTestDatabase, type TestDatabase } from './test-store';

export type Serve = Awaited<ReturnType<typeof startServe>>;

export interface ServeRig {
  tdb: TestDatabase;
  rx: Receiver;
  sql: RawSql;
  /** Start `payforge serve` with `args` (killed at close). */
  serve(args: string[]): Promise<Serve>;
  /** Kill every serve started, wait for their exits, then close the rest. */
  close(): Promise<void>;
}

export async function serveRig(): Promise<ServeRig> {
  const tdb = await freshTestDatabase();
  const rx = startReceiver();
  const sql = rawSql(tdb.db);
  const servers: Serve[] = [];
  return {
    tdb,
    rx,
    sql,
    async serve(args) {
      const s = await startServe(args);
      servers.push(s);
      return s;
    },
    async close() {
      for (const s of servers) s.proc.kill('SIGKILL');
      await Promise.all(servers.map((s) => s.proc.exited));
      await sql.close();
      await rx.close();
      tdb.dispose();
    },
  };
}
