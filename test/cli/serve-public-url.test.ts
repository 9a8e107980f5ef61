// Pay links are <publicUrl>/pay/<token>, publicUrl defaulting to http://<host>:<port>. Bound to a
// wildcard address (0.0.0.0, what the Docker image sets), that default is a link no payer can
// open: serve says so at start, naming the setting, instead of handing such links out silently.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { startServe } from '../support/cli';
import { freshTestDatabase } from '../support/test-store';

async function startupLines(args: string[], env: Record<string, string> = {}): Promise<Array<{ level: string; msg: string; [k: string]: unknown }>> {
  const { db } = await freshTestDatabase();
  const run = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db, ...args], { env });
  try {
    // The last start-up line is written right after "listening"; the bootstrap line after it.
    await waitFor(() => (run.stderr().includes('"listening"') ? true : null), 5000, 'the listening line');
    const intent = await fetch(`${run.url}/v1/intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1', requestor: '0x1111111111111111111111111111111111111111' }),
    });
    expect(intent.status).toBe(201);
    return run.stderr().trim().split('\n').map((l) => JSON.parse(l));
  } finally {
    await run.stop();
  }
}

describe('serve on a wildcard address without publicUrl', () => {
  it('warns that pay links name 0.0.0.0 and how to set publicUrl', async () => {
    const lines = await startupLines(['--host', '0.0.0.0']);
    const warn = lines.find((l) => l.level === 'warn' && /pay links/.test(l.msg));
    expect(warn, JSON.stringify(lines)).toBeDefined();
    expect(warn!.payUrl).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/pay\/…$/);
    expect(JSON.stringify(warn)).toContain('PAYFORGE_PUBLIC_URL');
  });

  it('says nothing when publicUrl is set, or on the default loopback address', async () => {
    for (const [args, env] of [[['--host', '0.0.0.0'], { PAYFORGE_PUBLIC_URL: 'https://pay.example.com' }], [[], {}]] as const) {
      const lines = await startupLines([...args], { ...env });
      expect(lines.filter((l) => /pay links/.test(l.msg))).toEqual([]);
    }
  });
});
