// An EIP-1193 wallet injected into a real Chromium page and announced by EIP-6963. Its requests
// cross into this process (puppeteer exposeFunction), where a viem account on anvil answers them
// as a browser wallet would: accounts, chain id, switch chain, eth_call, eth_sendTransaction
// (signs and sends itself: browser wallets cannot sign without sending). `behaviour` plays the
// person behind the wallet (rejects the request, refuses to switch networks). With `legacy` it is
// only `window.ethereum` (an older wallet that does not announce itself through EIP-6963).
import type { Page } from 'puppeteer-core';
import { createWalletClient, defineChain, http, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Anvil } from './anvil';

export interface PageWallet {
  /** Every method the page asked for, in order. */
  calls: string[];
  sent: Hex[];
  behaviour: { reject: boolean; chainId: number; canSwitch: boolean };
}

export async function injectWallet(page: Page, anvil: Anvil, account: PrivateKeyAccount, name = 'Test Wallet', opts: { legacy?: boolean } = {}): Promise<PageWallet> {
  const chain = defineChain({ id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.url] } } });
  const client = createWalletClient({ account, chain, transport: http(anvil.url) });
  const w: PageWallet = { calls: [], sent: [], behaviour: { reject: false, chainId: anvil.chainId, canSwitch: true } };
  const answer = async (method: string, params: unknown[]): Promise<unknown> => {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address];
      case 'eth_chainId':
        return `0x${w.behaviour.chainId.toString(16)}`;
      case 'wallet_switchEthereumChain': {
        const want = Number(BigInt((params[0] as { chainId: string }).chainId));
        if (!w.behaviour.canSwitch || want !== anvil.chainId) throw { code: 4902, message: 'Unrecognized chain ID' };
        w.behaviour.chainId = want;
        return null;
      }
      case 'eth_call':
        return anvil.rpc('eth_call', params);
      case 'eth_sendTransaction': {
        if (w.behaviour.reject) throw { code: 4001, message: 'User rejected the request.' };
        const tx = params[0] as { to: Hex; data: Hex; value?: Hex };
        const hash = await client.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? '0x0') });
        w.sent.push(hash);
        return hash;
      }
      default:
        throw { code: 4200, message: `test wallet: unexpected method ${method}` };
    }
  };
  await page.exposeFunction('__pfWalletRequest', async (json: string) => {
    const { method, params } = JSON.parse(json) as { method: string; params?: unknown[] };
    w.calls.push(method);
    try {
      return JSON.stringify({ result: await answer(method, params ?? []) });
    } catch (e) {
      const err = e as { code?: number; message?: string };
      return JSON.stringify({ error: { code: err.code ?? -32603, message: err.message ?? String(e) } });
    }
  });
  await page.evaluateOnNewDocument((walletName: string, legacy: boolean) => {
    const provider = {
      request: (args: { method: string; params?: unknown[] }) =>
        (window as unknown as { __pfWalletRequest(j: string): Promise<string> }).__pfWalletRequest(JSON.stringify(args)).then((r) => {
          const o = JSON.parse(r) as { result?: unknown; error?: { code: number; message: string } };
          if (o.error) throw Object.assign(new Error(o.error.message), { code: o.error.code });
          return o.result;
        }),
    };
    if (legacy) {
      (window as unknown as { ethereum: unknown }).ethereum = provider;
      return;
    }
    const detail = Object.freeze({ info: { uuid: '5f3c2d1e-0000-4000-8000-000000000001', name: walletName, icon: 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E', rdns: 'dev.payforge.testwallet' }, provider });
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  }, name, opts.legacy === true);
  return w;
}
