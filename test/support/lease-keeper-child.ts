// A lease keeper in its own process (for kill -9 tests): `bun lease-keeper-child.ts <postgres url>
// <owner> <leaseSeconds>`. Prints one JSON line `{"held":[...]}` whenever what it holds changes.
import { SQL } from 'bun';
import { createWorkLeases } from '../../src/actors/work-leases';
import { createPgLeaseStore } from '../../src/store/pg/leases';

const [url, owner, leaseSeconds] = process.argv.slice(2);
const sql = new SQL({ url: url!, max: 2 });
const keeper = createWorkLeases({
  store: createPgLeaseStore(sql), owner: owner!, chains: ['base', 'solana'], leaseSeconds: Number(leaseSeconds), log: () => {},
  onGained: () => print(),
  onLost: () => print(),
});
const print = () => process.stdout.write(`${JSON.stringify({ held: keeper.held() })}\n`);
await keeper.start();
print();
setInterval(() => {}, 1 << 30);
