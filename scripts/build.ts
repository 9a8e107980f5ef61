// `bun run build`: embed the migrations and the sanctions list as generated TS modules, then
// compile src/main.ts (and the dispatcher's and intent writer's workers) into the single executable dist/payforge (runs with nothing beside it).
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
// The bun running this script; `bun` may not be on PATH (npx bun@… run build).
const bun = process.execPath;

function step(args: string[]): void {
  console.error(`$ bun ${args.join(' ')}`);
  const r = Bun.spawnSync([bun, ...args], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
  if (r.exitCode !== 0) {
    console.error(`build: \`bun ${args.join(' ')}\` failed with exit code ${r.exitCode}`);
    process.exit(r.exitCode ?? 1);
  }
}

step(['scripts/embed-migrations.ts']);
if (existsSync(join(root, 'scripts/embed-sanctions.ts'))) step(['scripts/embed-sanctions.ts']);
mkdirSync(join(root, 'dist'), { recursive: true });
// The webhook dispatcher's and the intent writer's workers are more entry points: bundled into the
// executable under the build's root (src/), where src/webhooks/dispatcher-thread.ts and
// src/store/intent-writer.ts start them from.
step(['build', '--compile', '--minify', '--sourcemap', 'src/main.ts', 'src/webhooks/dispatch-worker.ts', 'src/store/intent-writer-worker.ts', '--outfile', 'dist/payforge']);
// The sourcemaps are embedded in the executable (stack traces name src/ lines); the side files
// it also writes (payforge.map and one per worker entry point) are by-products, removed so
// dist/payforge is the one artifact.
for (const f of readdirSync(join(root, 'dist'))) if (f.endsWith('.map')) rmSync(join(root, 'dist', f), { force: true });
console.error('build: wrote dist/payforge');
