// The payforge CLI entry (`bun src/main.ts …` from a checkout, `dist/payforge …` compiled).
// Commands live in src/cli/, one per file; run.ts dispatches and reports errors.
import { run } from './cli/run';

const code = await run(process.argv.slice(2));
// serve keeps its server open; every other command is done, so let the event loop drain.
process.exitCode = code;
