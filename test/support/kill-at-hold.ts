// The crash tests' child process: it reports on stdout one line per event, "<kind> <value>" ("A id"
// a write acknowledged, "H n" a checkpoint hold begun, others as the child defines), and is killed
// with SIGKILL once it has begun `holds` holds. What it said before the kill is what the test then
// checks against the file; nothing said after the kill is counted.
import { spawn } from 'node:child_process';

/** The child's lines by kind ("A" acknowledged, ...), in the order it wrote them. */
export type ChildSaid = Map<string, string[]>;

export async function runUntilHolds(script: URL, args: string[], holds: number): Promise<ChildSaid> {
  const child = spawn(process.execPath, [script.pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const said: ChildSaid = new Map();
  let buf = '';
  let killed = false;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(
        () => reject(new Error(`the child did not reach ${holds} holds (acknowledged ${said.get('A')?.length ?? 0})`)),
        60_000,
      );
      child.on('exit', () => {
        clearTimeout(guard);
        if (killed) resolve();
        else reject(new Error('the child exited on its own'));
      });
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (killed) continue;
          const space = line.indexOf(' ');
          const [kind, value] = space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)];
          // At the start of a hold: the held pass (its WAL and database fsyncs) is under way.
          if (kind === 'H' && Number(value) >= holds) {
            killed = true;
            child.kill('SIGKILL');
          } else {
            const list = said.get(kind);
            if (list) list.push(value);
            else said.set(kind, [value]);
          }
        }
      });
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  return said;
}
