// The linter's architecture rules (biome.jsonc) fire where they should and stay quiet where an
// import is allowed, and the repo itself passes `bun run lint`, so the full suite catches a
// broken rule before CI does.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIOME = join(ROOT, 'node_modules/.bin/biome');

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

function biome(cwd: string, ...args: string[]): { code: number; out: string } {
  const p = Bun.spawnSync([BIOME, 'lint', '--error-on-warnings', ...args], { cwd, stdout: 'pipe', stderr: 'pipe' });
  return { code: p.exitCode, out: p.stdout.toString() + p.stderr.toString() };
}

describe('lint rules', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-lint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Probe files laid out like the repo, linted with the repo's own configuration.
  const probes: Record<string, string> = {
    'src/intents/sql.ts': "import { Database } from 'bun:sqlite';\nexport const d = Database;\n",
    'src/webhooks/drizzle.ts': "import { eq } from 'drizzle-orm';\nexport const d = eq;\n",
    'src/store/ok.ts': "import { Database } from 'bun:sqlite';\nimport { eq } from 'drizzle-orm';\nexport const d = [Database, eq];\n",
    'src/chains/evm/solana.ts': "import { address } from '@solana/kit';\nexport const d = address;\n",
    'src/chains/solana/ok.ts': "import { address } from '@solana/kit';\nexport const d = address;\n",
    'src/intents/viem.ts': "export const f = async () => (await import('viem')).parseUnits;\n",
    'src/chains/evm/ok.ts': "import { parseUnits } from 'viem';\nexport const d = parseUnits;\n",
    'src/intents/elysia.ts': "import { Elysia } from 'elysia';\nexport const d = Elysia;\n",
    'src/dashboard/ok.ts': "import { Elysia } from 'elysia';\nimport { html } from '../web/html';\nexport const d = [Elysia, html];\n",
    'src/web/ok.ts': "import { Elysia } from 'elysia';\nexport const d = Elysia;\n",
    // The web surfaces are siblings: none imports another, and src/web imports none.
    'src/dashboard/api.ts': "import { apiPlugin } from '../api/app';\nexport const d = apiPlugin;\n",
    'src/api/intents/pay.ts': "import { payPlugin } from '../../pay/index';\nexport const d = payPlugin;\n",
    'src/pay/dashboard.ts': "import { dashboardPlugin } from '../dashboard/index';\nexport const d = dashboardPlugin;\n",
    'src/pay/db.ts': "import type { Db } from '../store/db';\nexport type D = Db;\n",
    'src/web/api.ts': "import { HTTP_STATUS } from '../api/openapi/document';\nexport const d = HTTP_STATUS;\n",
    'machines/store.ts': "import { openDb } from '../src/store/db';\nexport const d = openDb;\n",
    'machines/ok.ts': "import { setup } from 'xstate';\nimport { AppError } from '../src/domain/errors';\nimport { d as s } from './store';\nexport const d = [setup, AppError, s];\n",
    'src/actors/console.ts': "export function f(): void {\n  console.warn('x');\n}\n",
    'src/log.ts': "export function f(): void {\n  console.warn('x');\n}\n",
    'test/ok.test.ts': "console.log('tests may print');\n",
  };
  for (const [path, text] of Object.entries(probes)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  cpSync(join(ROOT, 'biome.jsonc'), join(dir, 'biome.jsonc'));

  it('flags each forbidden import and console call, and nothing else', () => {
    const { code, out } = biome(dir, '--reporter=json', '--max-diagnostics=100', '.');
    expect(code).not.toBe(0);
    const report = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as { diagnostics: Diagnostic[] };
    const found = report.diagnostics.map((d) => `${d.location.path} ${d.category}: ${d.message}`).sort();
    expect(found).toEqual([
      'machines/store.ts lint/style/noRestrictedImports: machines/ is pure: it imports only xstate, src/domain and its own files.',
      "src/actors/console.ts lint/suspicious/noConsole: Don't use console.",
      'src/api/intents/pay.ts lint/style/noRestrictedImports: Web surfaces are siblings: src/api imports no other surface. Share through a verb, the store or src/web.',
      'src/chains/evm/solana.ts lint/style/noRestrictedImports: The Solana SDK lives only in src/chains/solana: go through the ChainAdapter (src/chains/types.ts).',
      'src/dashboard/api.ts lint/style/noRestrictedImports: Web surfaces are siblings: src/dashboard imports no other surface. Share through a verb, the store or src/web.',
      'src/intents/elysia.ts lint/style/noRestrictedImports: Elysia lives only in the web surfaces (src/api, src/dashboard, src/pay) and their shell src/web: call a verb from src/intents instead.',
      'src/intents/sql.ts lint/style/noRestrictedImports: SQL drivers live only in src/store: add or use a repository function there.',
      'src/intents/viem.ts lint/style/noRestrictedImports: viem lives only in src/chains/evm: go through the ChainAdapter (src/chains/types.ts).',
      'src/pay/dashboard.ts lint/style/noRestrictedImports: Web surfaces are siblings: src/pay imports no other surface. Share through a verb, the store or src/web.',
      'src/pay/db.ts lint/style/noRestrictedImports: HTTP code is handed repositories (src/store/repos.ts), never the raw Db.',
      'src/web/api.ts lint/style/noRestrictedImports: src/web is neutral: it imports no web surface (they import it).',
      'src/webhooks/drizzle.ts lint/style/noRestrictedImports: SQL drivers live only in src/store: add or use a repository function there.',
    ]);
  });

  it('the repository passes `bun run lint`', () => {
    const { code, out } = biome(ROOT, '.');
    expect(code, out).toBe(0);
  });
});
