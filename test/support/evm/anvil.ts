// Starts a real anvil (npm @foundry-rs/anvil-linux-amd64) on a free port for one test file:
// plain with --chain-id 84532 for Base Sepolia, --network tempo --chain-id 42431 for Tempo.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ANVIL = join(import.meta.dirname, '../../../node_modules/.bin/anvil');

/** anvil's default mnemonic accounts 0..9 (public test keys). */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
] as const;

export type AnvilKind = 'base' | 'tempo';

export interface Anvil {
  url: string;
  chainId: number;
  /** Raw JSON-RPC to this anvil (test control: mining, automine, reorgs); throws on an error answer. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

const ARGS: Record<AnvilKind, string[]> = {
  // --slots-in-an-epoch 1 makes the 'finalized' tag trail the head by two blocks.
  base: ['--chain-id', '84532', '--slots-in-an-epoch', '1'],
  tempo: ['--network', 'tempo', '--chain-id', '42431', '--slots-in-an-epoch', '1'],
};

export async function startAnvil(kind: AnvilKind, extraArgs: string[] = []): Promise<Anvil> {
  const child: ChildProcess = spawn(ANVIL, [...ARGS[kind], '--port', '0', '--host', '127.0.0.1', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${seen}`)), 20_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Listening on [\d.]+:(\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume(); // keep draining so anvil never blocks on a full pipe
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (seen += c.toString()));
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}:\n${seen}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  return {
    url,
    chainId: kind === 'base' ? 84532 : 42431,
    async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
      const body = (await res.json()) as { result?: T; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result as T;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The receipt of `hash`, polled: with automine, eth_sendRawTransaction can answer before the
 * block holding it is readable, so reading the receipt once right after a send is flaky.
 */
export async function receiptOf<T = { status: string; blockNumber: string }>(anvil: Anvil, hash: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await anvil.rpc<T | null>('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > end) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 25));
  }
}
