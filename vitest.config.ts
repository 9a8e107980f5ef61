// vitest on the Bun runtime: the forks pool crashes under Bun, and Node cannot load bun:sqlite.
import { defineConfig, type Plugin } from 'vitest/config';

/**
 * Bun's file imports under Vite: `import p from 'pkg/asset.js' with { type: 'file' }` gives the
 * asset's path in Bun (and embeds the file in `bun build --compile`), but Vite ignores import
 * attributes and would load the asset as a module. This rewrites such an import into the same
 * thing Bun gives at run time: a constant holding the resolved absolute path.
 */
function bunFileImports(): Plugin {
  const FILE_IMPORT = /import\s+(\w+)\s+from\s+(['"])([^'"]+)\2\s+with\s*\{\s*type:\s*(['"])file\4\s*\};?/g;
  return {
    name: 'bun-file-imports',
    enforce: 'pre',
    async transform(code, id) {
      if (!/\.[cm]?tsx?$/.test(id) || !code.includes('file')) return null;
      const matches = [...code.matchAll(FILE_IMPORT)];
      if (matches.length === 0) return null;
      let out = code;
      for (const [statement, name, , source] of matches) {
        const resolved = await this.resolve(source!, id, { skipSelf: true });
        if (!resolved) throw new Error(`bun-file-imports: cannot resolve ${source} from ${id}`);
        out = out.replace(statement, `const ${name} = ${JSON.stringify(resolved.id)};`);
      }
      return { code: out, map: null };
    },
  };
}

export default defineConfig({
  plugins: [bunFileImports()],
  test: {
    pool: 'threads',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    retry: 0,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
