// Bun preload for running openapi-typescript: it builds its output with the TypeScript 5 compiler
// API (ts.factory), which TypeScript 7 (the project's tsc, a native binary) no longer ships. The
// package `typescript5` (npm alias of typescript@5) stands in for `typescript` in that process.
import { plugin } from 'bun';

const TS5 = require.resolve('typescript5/lib/typescript.js');

plugin({
  name: 'typescript5-for-openapi-typescript',
  setup(build) {
    build.onLoad({ filter: /node_modules\/typescript\/lib\/version\.cjs$/ }, () => ({
      contents: `import ts from ${JSON.stringify(TS5)}; export default ts;`,
      loader: 'js',
    }));
  },
});
