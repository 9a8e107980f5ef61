// Issue 8 item 3: a client generated from the live /openapi.json by openapi-typescript, used
// through openapi-fetch, type-checks an integrator's create -> get -> simulate -> refund program
// strictly with no `any` (test/api/typed-client/program.ts), and that program then runs against
// the real server. Generation, tsc and the program run as real processes in a temp folder.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli';
import { EVM_ADDR2, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
let dir: string;
let key: string;

async function run(cmd: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(cmd, { cwd: dir, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

beforeAll(async () => {
  s = await startTestServer();
  key = (await s.account({ plan: 'pro' })).key;
  dir = mkdtempSync(join(tmpdir(), 'payforge-typed-client-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  copyFileSync(join(REPO_ROOT, 'test/api/typed-client/program.ts'), join(dir, 'program.ts'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2023', 'DOM'], types: [],
        strict: true, noImplicitAny: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, noEmit: true,
      },
      files: ['program.ts', 'api.ts'],
    }),
  );
  writeFileSync(join(dir, 'openapi.json'), await (await fetch(`${s.url}/openapi.json`)).text());
  const gen = await run([process.execPath, '--preload', join(REPO_ROOT, 'test/support/typescript5.ts'), join(REPO_ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'api.ts']);
  expect(gen.code, gen.err).toBe(0);
});
afterAll(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('generates types with no `any` and a named type per schema', () => {
  const api = readFileSync(join(dir, 'api.ts'), 'utf8');
  expect(api).not.toMatch(/[:<|(,]\s*any\b/);
  expect(api).toMatch(/PaymentIntent: \{/);
  expect(api).toMatch(/IntentState: "created" \| "pending"/);
  expect(api).toMatch(/state: components\["schemas"\]\["IntentState"\]/);
});

it('the program type-checks strictly (tsc --noEmit, noImplicitAny); a wrong field type does not', async () => {
  const tsc = await run([join(REPO_ROOT, 'node_modules/.bin/tsc'), '-p', '.']);
  expect(tsc.out + tsc.err).toBe('');
  expect(tsc.code).toBe(0);
  // The same check fails on a program that misuses a field: the types are not loose.
  const bad = readFileSync(join(dir, 'program.ts'), 'utf8').replace("token: 'USDC'", 'token: 42');
  writeFileSync(join(dir, 'bad.ts'), bad);
  writeFileSync(join(dir, 'tsconfig.bad.json'), JSON.stringify({ extends: './tsconfig.json', files: ['bad.ts', 'api.ts'] }));
  const fails = await run([join(REPO_ROOT, 'node_modules/.bin/tsc'), '-p', 'tsconfig.bad.json']);
  expect(fails.code).not.toBe(0);
  expect(fails.out).toMatch(/bad\.ts.*error TS2322/);
});

it('runs against the real server: create -> get -> simulate -> refund, and typed errors', async () => {
  const r = await run([process.execPath, 'program.ts', s.url, key]);
  expect(r.code, r.err).toBe(0);
  const out = JSON.parse(r.out);
  expect(out.created).toEqual({ status: 201, state: 'created', amount: '12.34', late: null, metadata: { order: '42' } });
  expect(out.got).toEqual({ status: 200, id: expect.stringMatching(/^pi_/), requestId: expect.any(String) });
  expect(out.simulated).toEqual({ status: 200, state: 'confirmed' });
  expect(out.refund).toEqual({ status: 200, refundOf: out.got.id, requestor: EVM_ADDR2 });
  expect(out.again).toEqual({ status: 409, code: 'intent.already_refunded', param: null });
  expect(out.missing).toEqual({ status: 404, code: 'intent.not_found' });
  expect(out.list.ids).toEqual([out.got.id]);
  expect(out.list.hasMore).toBe(false);
});
