// bench/RESULTS.md: replace (or add) a bench's marked "latest" block under its `## name` heading.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Replace (or add) this bench's marked block under its `## name` heading in bench/RESULTS.md. */
export function writeResults(name: string, md: string): string {
  const file = join(import.meta.dir, '..', 'RESULTS.md');
  const START = `<!-- bench/${name} latest: written by \`bun bench/${name}/run.ts --write\` -->`;
  const END = `<!-- /bench/${name} latest -->`;
  const block = `${START}\n${md}\n${END}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const heading = new RegExp(`^## ${name}$`, 'm');
  if (text.includes(START) && text.includes(END)) {
    text = text.slice(0, text.indexOf(START)) + block + text.slice(text.indexOf(END) + END.length);
  } else if (heading.test(text)) {
    text = text.replace(heading, `## ${name}\n\n${block}`);
  } else {
    text = `${text.trimEnd()}\n\n## ${name}\n\n${block}\n`;
  }
  writeFileSync(file, text);
  return file;
}
