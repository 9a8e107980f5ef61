// Every log line goes through src/log.ts: one JSON object per line on stderr with `time`, and the
// configured level filters everything, the chain watchers' RPC trouble included (the adapters
// take the server's logger, compose.ts passes it).
import { afterEach, describe, expect, it } from 'vitest';
import { createEvmAdapter } from '../src/chains/evm/adapter';
import { resolveNetworks } from '../src/chains/networks';
import { createSolanaAdapter } from '../src/chains/solana/adapter';
import type { Network, WatchItem, Watcher } from '../src/chains/types';
import { DEFAULT_CONFIG } from '../src/config.types';
import { createLogger, type LogLevel } from '../src/log';
import { createRpcPool } from '../src/rpc/pool';
import { waitFor } from './support/api';

/** Capture what createLogger writes to stderr during fn. */
function stderrOf(fn: () => void): string[] {
  const lines: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((chunk: string) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stderr.write = original;
  }
  return lines;
}

describe('createLogger', () => {
  it('writes one JSON line with time, level, msg and fields, and drops lines below its level', () => {
    const lines = stderrOf(() => {
      const log = createLogger('warn');
      log('info', 'not shown');
      log('warn', 'shown', { chain: 'eip155:84532' });
      log('error', 'also shown');
    });
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.endsWith('\n') && !l.slice(0, -1).includes('\n')).toBe(true);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toEqual({ time: expect.any(String), level: 'warn', msg: 'shown', chain: 'eip155:84532' });
    expect(new Date(first.time as string).toISOString()).toBe(first.time);
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 'error', msg: 'also shown' });
  });
});

describe("the chain watchers log through the adapter's logger", () => {
  const networks = resolveNetworks(DEFAULT_CONFIG);
  let watcher: Watcher | undefined;
  afterEach(async () => {
    await watcher?.stop();
    watcher = undefined;
  });

  // An upstream that refuses connections: every tick fails, and the watcher must say so.
  const deadPool = (chain: string) =>
    createRpcPool({ chain, urls: ['http://127.0.0.1:9'], timeoutMs: 500, breakerFailures: 100, breakerCooldownMs: 1000, retryAfterSeconds: 1 });

  const item = (network: Network, txSignature: string, requestor: string, tokenAddress: string): WatchItem => ({
    intentId: 'pi_log',
    chain: network.chain,
    txSignature,
    signedTransaction: null,
    watchData: {},
    stage: 'pending',
    intent: { id: 'pi_log', chain: network.chain, token: 'USDC', tokenAddress, decimals: 6, amountBaseUnits: 1n, requestor, fulfiller: null },
  });

  const cases = [
    {
      family: 'evm',
      chain: 'eip155:84532',
      make: (log: ReturnType<typeof capture>['log']) => createEvmAdapter({ log }),
      tx: `0x${'ab'.repeat(32)}`,
      requestor: '0x1111111111111111111111111111111111111111',
    },
    {
      family: 'solana',
      chain: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      make: (log: ReturnType<typeof capture>['log']) => createSolanaAdapter({ log }),
      tx: '5'.repeat(87),
      requestor: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    },
  ] as const;

  function capture() {
    const entries: Array<{ level: LogLevel; msg: string; fields: Record<string, unknown> }> = [];
    return { entries, log: (level: LogLevel, msg: string, fields: Record<string, unknown> = {}) => void entries.push({ level, msg, fields }) };
  }

  for (const c of cases) {
    it(`${c.family}: a failing tick is a warn line from the given logger, naming the chain`, async () => {
      const network = { ...networks.get(c.chain)!, pollIntervalMs: 20 };
      const token = Object.values(network.tokens)[0]!;
      const { entries, log } = capture();
      watcher = c.make(log).createWatcher(network, deadPool(c.chain), () => {});
      watcher.watch(item(network, c.tx, c.requestor, token.address));
      const entry = await waitFor(() => entries[0], 10_000, `a log entry from the ${c.family} watcher`);
      expect(entry).toMatchObject({ level: 'warn', msg: expect.stringMatching(new RegExp(`^${c.family} watcher: `)) });
      expect(entry.fields).toMatchObject({ chain: c.chain, error: expect.any(String) });
    });
  }
});
