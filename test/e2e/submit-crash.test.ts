// Crash windows of submit (issue 9 item 1, contract 11): a REAL `payforge serve` process is
// killed with SIGKILL right after the chain accepted its broadcast and before PayForge answered
// (an RPC proxy pulls the trigger). After a restart on the same database the intent reaches
// confirmed and finalized with its events, is never expired (its TTL ran out while the server
// was down: it gets pendingAtExpiry), and a second build or submit for it is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { erc20Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db';
import { eventsOf, intentIn, waitFor } from '../support/api';
import { startServe } from '../support/cli';
import { startCrashProxy, type CrashProxy } from '../support/crash-proxy';
import { DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { signBlob } from '../support/evm/chain';
import { ownerClient } from '../support/evm/token';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { client, type ApiClient } from '../support/server';
import { startPayChains } from '../support/pay-chains';

const BASE = 'eip155:84532';

let anvil: Anvil;
let sol: LocalSolana;
let usdc: Hex;
let baseProxy: CrashProxy;
let solProxy: CrashProxy;
let dir: string;
let dbPath: string;
let configPath: string;
let server: Awaited<ReturnType<typeof startServe>> | null = null;
let key: string;
const payer = privateKeyToAccount(DEV_KEYS[4]);
let solPayer: KeyPairSigner;

async function serve(): Promise<ApiClient> {
  server = await startServe(['serve', '--bootstrap', '--port', '0', '--db', dbPath, '--config', configPath]);
  if (server.testKey) key = server.testKey;
  return client(server.url, key);
}

/** SIGKILL: no handler runs, nothing is flushed, the socket of the pending request just closes. */
function killServer(): void {
  server?.proc.kill('SIGKILL');
}

beforeAll(async () => {
  ({ anvil, sol, usdc, solPayer } = await startPayChains(payer.address));
  [baseProxy, solProxy] = await Promise.all([startCrashProxy(anvil.url), startCrashProxy(sol.url)]);
  dir = mkdtempSync(join(tmpdir(), 'pf-crash-'));
  dbPath = join(dir, 'payforge.db');
  configPath = join(dir, 'payforge.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      logLevel: 'error',
      networks: {
        [BASE]: { rpc: [baseProxy.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
        [DEVNET_CHAIN]: { rpc: [solProxy.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop();
  await Promise.all([baseProxy?.stop(), solProxy?.stop()]);
  await Promise.all([anvil?.stop(), sol?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** As if the server had stayed down past the intent's TTL. */
function expireOnDisk(id: string): void {
  const db = openDb(dbPath);
  db.sqlite.query('UPDATE intents SET expires_at = ? WHERE id = ?').run(Date.now() - 1000, id);
  db.close();
}

const stateOf = intentIn;

async function submitAndDie(api: ApiClient, proxy: CrashProxy, id: string, signedTransaction: string): Promise<void> {
  proxy.armOnce(killServer);
  const before = proxy.broadcasts;
  // The request dies with the process: no answer at all.
  await expect(api.post(`/v1/intents/${id}/submit`, { signedTransaction })).rejects.toThrow();
  expect(await server!.proc.exited).not.toBe(0);
  expect(proxy.broadcasts).toBe(before + 1);
}

async function afterRestart(api: ApiClient, id: string, refuse: () => Promise<{ status: number }>): Promise<void> {
  // Reconciled at boot: pending (never expired), and a second payment is refused at once.
  expect([409]).toContain((await refuse()).status);
  const fin = await waitFor(stateOf(api, id, 'finalized'), 60_000, 'finalized after restart');
  expect(fin.pendingAtExpiry).toBe(true);
  expect((await eventsOf(api, id)).map((e) => e.type)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  expect((await refuse()).status).toBe(409);
}

describe('kill -9 between the broadcast and the answer', () => {
  it('EVM (anvil): the landed payment drives the intent to finalized after restart; no second payment', async () => {
    let api = await serve();
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const created = await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '6.5', requestor, ttlSeconds: 60 });
    const id = created.body.intent.id as string;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
    expect(built.status).toBe(200);
    await submitAndDie(api, baseProxy, id, await signBlob(payer, built.body.transaction.blob));
    expireOnDisk(id);

    api = await serve();
    await afterRestart(api, id, async () => {
      const again = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
      return again;
    });
    const paid = await ownerClient(anvil).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [requestor] });
    expect(paid).toBe(6_500_000n);
    await server!.stop();
  }, 180_000);

  it('Solana (local LiteSVM): the landed payment drives the intent to finalized after restart; no second payment', async () => {
    let api = await serve();
    const requestor = (await generateKeyPairSigner()).address;
    const created = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '3.3', requestor, ttlSeconds: 60 });
    const id = created.body.intent.id as string;
    const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
    expect(built.status).toBe(200);
    await submitAndDie(api, solProxy, id, await signMessageBlob(built.body.transaction.blob, [solPayer]));
    expireOnDisk(id);

    api = await serve();
    await afterRestart(api, id, async () => {
      const rebuilt = await api.post(`/v1/intents/${id}/build`, { fulfiller: solPayer.address });
      return rebuilt;
    });
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(3_300_000n);
    await server!.stop();
  }, 180_000);
});
