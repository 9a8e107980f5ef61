// The EVM adapter through the shared RpcPool when upstreams fail: no upstream -> rpc.unavailable
// with retry_after; a 503-ing first upstream -> failover to the next, and the payment still lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { evmAdapter } from '../../../src/chains/evm/adapter';
import type { Network } from '../../../src/chains/types';
import { AppError } from '../../../src/domain/errors';
import { DEV_KEYS, receiptOf, startAnvil, type Anvil } from '../../support/evm/anvil';
import { baseSepolia, intentFor, poolFor, signBlob } from '../../support/evm/chain';
import { DEAD_URL, startProxy, type RpcProxy } from '../../support/evm/proxy';
import { deployToken } from '../../support/evm/token';

let anvil: Anvil;
let proxy: RpcProxy;
let usdc: Hex;
let network: Network;
const payer = privateKeyToAccount(DEV_KEYS[4]);
const requestor = privateKeyToAccount(DEV_KEYS[5]).address;

beforeAll(async () => {
  anvil = await startAnvil('base');
  usdc = await deployToken(anvil, { [payer.address]: 1_000_000n });
  proxy = await startProxy(anvil.url);
  network = baseSepolia([proxy.url, anvil.url], usdc);
});
afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('EVM adapter over a failing RPC', () => {
  it('gives rpc.unavailable with retry_after when no upstream answers (build, verify, broadcast)', async () => {
    const dead = poolFor(network, [DEAD_URL]);
    const live = poolFor(network, [anvil.url]);
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 10n });
    const b = await rejection(evmAdapter.build(network, dead, intent, payer.address));
    expect(b.code).toBe('rpc.unavailable');
    expect(b.details.retry_after).toBe(2);

    const built = await evmAdapter.build(network, live, intent, payer.address);
    const signed = await signBlob(payer, built.transaction.blob);
    expect((await rejection(evmAdapter.verifySubmission(network, dead, intent, signed, null))).code).toBe('rpc.unavailable');
    const v = await evmAdapter.verifySubmission(network, live, intent, signed, null);
    const s = await rejection(evmAdapter.broadcast(network, dead, v));
    expect(s.code).toBe('rpc.unavailable');
    expect(await anvil.rpc('eth_getTransactionByHash', [v.txSignature])).toBeNull();
  });

  it('fails over from a 503 upstream to the next one, end to end', async () => {
    proxy.mode = 'down';
    const pool = poolFor(network); // [proxy (503), anvil]
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 20n });
    const built = await evmAdapter.build(network, pool, intent, payer.address);
    const v = await evmAdapter.verifySubmission(network, pool, intent, await signBlob(payer, built.transaction.blob), null);
    await evmAdapter.broadcast(network, pool, v);
    expect(proxy.refused).toBeGreaterThan(0);
    expect(proxy.forwarded).toBe(0);
    expect((await receiptOf(anvil, v.txSignature)).status).toBe('0x1');
    expect(pool.status()[0]!.failures).toBeGreaterThan(0);
    proxy.mode = 'up';
  });
});
