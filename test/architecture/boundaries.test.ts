// The layers of docs/architecture.md, checked: every import in src/ and machines/ goes to a layer
// its own layer may use (never upward, never sideways between siblings), and no file imports
// itself through a cycle. Package imports (SDKs, SQL drivers, console) are the linter's rules.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Who may import whom. A layer is a folder of src/ (src/store/**), a file at src/'s top
 * (src/log.ts is `log`), or `machines`. A new folder or top-level file must be added here: where
 * it sits in the picture is a decision, not an accident.
 */
const LEAVES = ['domain', 'log', 'config.types', 'trace'] as const;
const CORE = ['store', 'rpc', 'screening', 'chains', 'webhooks', ...LEAVES];
const BELOW_VERBS = ['actors', 'machines', ...CORE];
const BELOW_SURFACES = ['intents', ...BELOW_VERBS];
/** What a web surface may use: the verbs and everything below them, and the neutral src/web. */
const FOR_SURFACES = ['web', ...BELOW_SURFACES];
/** The web surfaces: siblings, mounted side by side by src/compose.ts, none importing another. */
const SURFACES = ['api', 'dashboard', 'pay'] as const;
const ALLOWED: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['domain', []],
  ['log', []],
  ['config.types', []],
  // Timing spans for the benches (src/trace.ts): a sink, no imports.
  ['trace', []],
  ['machines', ['domain']],
  ['store', ['domain', 'trace']],
  ['rpc', ['domain', 'log']],
  ['screening', ['domain', 'config.types', 'log']],
  ['chains', ['rpc', 'domain', 'config.types', 'log']],
  ['webhooks', ['store', 'domain', 'config.types', 'log']],
  ['actors', ['machines', ...CORE]],
  ['intents', BELOW_VERBS],
  // Shared by the web surfaces and owned by none: the shell they are mounted in (request ids, the
  // error envelope), the error code -> HTTP status table, the body limit, rate limiting, HTML
  // escaping, QR codes.
  ['web', ['domain', 'rpc', 'log']],
  // The web surfaces are siblings: each calls verbs and never imports another surface.
  ...SURFACES.map((s) => [s, FOR_SURFACES] as const),
  // The process around them: configuration, metrics, the composition root, the CLI.
  ['config', ['chains', 'domain', 'config.types', 'log']],
  ['metrics', BELOW_SURFACES],
  ['bootstrap', BELOW_SURFACES],
  ['compose', [...SURFACES, 'metrics', 'config', ...FOR_SURFACES]],
  ['server', ['compose', 'bootstrap', 'metrics', 'config', ...FOR_SURFACES]],
  ['cli', ['server', 'compose', 'bootstrap', 'metrics', 'config', ...FOR_SURFACES]],
  ['main', ['cli']],
]);

/**
 * Imports that break the picture today and are being removed by a named piece of work. The test
 * fails when one of them is gone, so this list can only shrink.
 */
const KNOWN: ReadonlyMap<string, string> = new Map([]);

function layerOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'machines') return 'machines';
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1];
}

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return walk(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

// Static imports and re-exports, type-only ones included (they couple layers too), and dynamic
// import('...') calls, which the transpiler finds without being fooled by comments.
const STATIC = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
const transpiler = new Bun.Transpiler({ loader: 'ts' });

function specifiers(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(STATIC)) found.add((m[1] ?? m[2])!);
  for (const i of transpiler.scanImports(source)) found.add(i.path);
  return [...found];
}

/** The repo's own import graph: file → the files it imports (relative specifiers only). */
function importGraph(): Map<string, string[]> {
  const files = [...walk('src'), ...walk('machines')];
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const spec of specifiers(readFileSync(join(ROOT, file), 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const base = relative(ROOT, resolve(ROOT, dirname(file), spec));
      const target = [base, `${base}.ts`, `${base}/index.ts`].find((c) => known.has(c));
      if (!target) throw new Error(`${file}: cannot resolve import '${spec}'`);
      targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every import that goes to a layer its own layer may not use, as "from -> to: why". */
function layerViolations(graph: Map<string, string[]>, allowed = ALLOWED): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = layerOf(from);
    if (a === undefined || !allowed.has(a)) {
      out.push(`${from}: layer '${a}' is not in the layer table of test/architecture/boundaries.test.ts`);
      continue;
    }
    for (const to of targets) {
      const b = layerOf(to)!;
      if (a === b || allowed.get(a)!.includes(b)) continue;
      const may = allowed.get(a)!;
      out.push(`${from} -> ${to}: '${a}' ${may.length ? `may import only ${may.join(', ')}` : 'imports no other layer'}`);
    }
  }
  return out;
}

/** Every import cycle between files, each once, as "a -> b -> … -> a". */
function cycles(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') out.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return out;
}

describe('architecture boundaries', () => {
  const graph = importGraph();

  it('has no upward or sideways import between layers', () => {
    const found = layerViolations(graph);
    const unexpected = found.filter((v) => !KNOWN.has(v.split(':')[0]!));
    expect(unexpected).toEqual([]);
  });

  it('still has every known exception (remove an entry from KNOWN once its import is gone)', () => {
    const found = new Set(layerViolations(graph).map((v) => v.split(':')[0]));
    expect([...KNOWN.keys()].filter((k) => !found.has(k))).toEqual([]);
  });

  it('has no SQL outside src/store (the same pattern as the grep in issue 16)', () => {
    const sql = /["'`]\s*(SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|PRAGMA)/;
    const found = [...graph.keys()].filter((f) => !f.startsWith('src/store/') && sql.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('hands no raw Db to HTTP code or verbs: they get the store\'s repositories (src/store/repos.ts)', () => {
    // The web surfaces, their shell and the verbs. The webhook dispatcher drives its own claim and
    // lease statements on the connection (src/store/webhook-dispatch.ts), so it is handed the Db.
    const bound = (f: string) =>
      ['api', 'dashboard', 'pay', 'web', 'intents', 'webhooks'].includes(layerOf(f)!) && f !== 'src/webhooks/dispatcher.ts';
    const found = [...graph].filter(([from, to]) => bound(from) && to.includes('src/store/db.ts')).map(([from]) => from);
    expect(found).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('the layer table itself has no cycle: every layer sits strictly below those that import it', () => {
    const layers = new Map([...ALLOWED].map(([k, v]) => [`src/${k}`, v.map((l) => `src/${l}`)]));
    expect(cycles(layers)).toEqual([]);
  });

  it('keeps the web surfaces siblings: none may import another, each may import src/web', () => {
    for (const a of SURFACES) {
      for (const b of SURFACES) if (a !== b) expect(ALLOWED.get(a), `${a} -> ${b}`).not.toContain(b);
      expect(ALLOWED.get(a)).toContain('web');
    }
    // src/web is neutral: it imports no surface, and nothing below the surfaces imports it.
    for (const s of SURFACES) expect(ALLOWED.get('web')).not.toContain(s);
    for (const [layer, may] of ALLOWED) if (BELOW_SURFACES.includes(layer)) expect(may, layer).not.toContain('web');
  });

  it('reports a surface importing a sibling, in every direction', () => {
    const bad = new Map<string, string[]>(
      SURFACES.flatMap((a) => SURFACES.filter((b) => b !== a).map((b) => [`src/${a}/uses-${b}.ts`, [`src/${b}/index.ts`]] as [string, string[]])),
    );
    const found = layerViolations(bad);
    expect(found).toHaveLength(SURFACES.length * (SURFACES.length - 1));
    for (const [from, [to]] of bad) expect(found).toContainEqual(expect.stringMatching(new RegExp(`^${from} -> ${to}: '`)));
  });

  it('reports an upward import, a sideways one, an unknown layer and a cycle (the checker can fail)', () => {
    const bad = new Map<string, string[]>([
      ['src/store/intents.ts', ['src/actors/runtime.ts']],
      ['src/dashboard/pages.ts', ['src/api/errors.ts']],
      ['machines/intent.machine.ts', ['src/log.ts']],
      ['src/newthing/x.ts', []],
      ['src/actors/runtime.ts', ['src/store/intents.ts']],
    ]);
    expect(layerViolations(bad)).toEqual([
      "src/store/intents.ts -> src/actors/runtime.ts: 'store' may import only domain, trace",
      expect.stringMatching(/^src\/dashboard\/pages\.ts -> src\/api\/errors\.ts: 'dashboard' may import only web, intents, /),
      "machines/intent.machine.ts -> src/log.ts: 'machines' may import only domain",
      "src/newthing/x.ts: layer 'newthing' is not in the layer table of test/architecture/boundaries.test.ts",
    ]);
    expect(cycles(bad)).toEqual(['src/actors/runtime.ts -> src/store/intents.ts -> src/actors/runtime.ts']);
  });
});
