// A Solana wallet registered in a real Chromium page through the Wallet Standard (the
// `wallet-standard:register-wallet` / `app-ready` handshake), with a kit key pair behind it in
// this process (puppeteer exposeFunction). `features` chooses what it offers: sign only, or
// sign-and-send (it then sends to the local Solana RPC itself, as Phantom does). `behaviour` plays
// the person behind the wallet (rejects the request); `chains` is the cluster the wallet is on.
import type { KeyPairSigner } from '@solana/kit';
import { getBase58Encoder } from '@solana/kit';
import type { Page } from 'puppeteer-core';
import { signMessageBlob } from './wallet';

export interface SolanaPageWallet {
  signed: string[];
  sent: string[];
  behaviour: { reject: boolean };
}

/** The v0 message inside a wire transaction (compact-u16 count < 128, then 64-byte slots). */
function messageOf(wire: Uint8Array): Uint8Array {
  const n = wire[0]!;
  return wire.subarray(1 + 64 * n);
}

export async function injectSolanaWallet(
  page: Page,
  o: { signer: KeyPairSigner; rpcUrl: string; features: Array<'signTransaction' | 'signAndSendTransaction'>; name?: string; chains?: string[] },
): Promise<SolanaPageWallet> {
  const w: SolanaPageWallet = { signed: [], sent: [], behaviour: { reject: false } };
  await page.exposeFunction('__pfSolanaSign', async (wireB64: string, send: boolean) => {
    // Phantom's words when the person closes the prompt (WalletSignTransactionError).
    if (w.behaviour.reject) throw new Error('User rejected the request.');
    const message = Buffer.from(messageOf(new Uint8Array(Buffer.from(wireB64, 'base64')))).toString('base64');
    const signed = await signMessageBlob(message, [o.signer]);
    w.signed.push(signed);
    if (!send) return signed;
    const res = await fetch(o.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [signed, { encoding: 'base64' }] }),
    });
    const body = (await res.json()) as { result?: string; error?: { message: string } };
    if (!body.result) throw new Error(`sendTransaction: ${body.error?.message}`);
    w.sent.push(body.result);
    return body.result;
  });
  const publicKey = Array.from(getBase58Encoder().encode(o.signer.address));
  await page.evaluateOnNewDocument(
    (cfg: { address: string; publicKey: number[]; features: string[]; name: string; chains: string[] }) => {
      const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
      const fromB58 = (s: string) => {
        const bytes = [0];
        for (const c of s) {
          let carry = B58.indexOf(c);
          for (let j = 0; j < bytes.length; j++) {
            carry += bytes[j]! * 58;
            bytes[j] = carry & 0xff;
            carry >>= 8;
          }
          while (carry) {
            bytes.push(carry & 0xff);
            carry >>= 8;
          }
        }
        for (const c of s) {
          if (c !== '1') break;
          bytes.push(0);
        }
        return new Uint8Array(bytes.reverse());
      };
      const toB64 = (a: Uint8Array) => btoa(String.fromCharCode(...a));
      const fromB64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const sign = (window as unknown as { __pfSolanaSign(w: string, send: boolean): Promise<string> }).__pfSolanaSign;
      const account = { address: cfg.address, publicKey: new Uint8Array(cfg.publicKey), chains: cfg.chains, features: cfg.features };
      const features: Record<string, unknown> = {
        'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
      };
      if (cfg.features.includes('solana:signTransaction')) {
        features['solana:signTransaction'] = {
          version: '1.0.0',
          supportedTransactionVersions: [0],
          signTransaction: async (...inputs: Array<{ transaction: Uint8Array }>) =>
            Promise.all(inputs.map(async (i) => ({ signedTransaction: fromB64(await sign(toB64(i.transaction), false)) }))),
        };
      }
      if (cfg.features.includes('solana:signAndSendTransaction')) {
        features['solana:signAndSendTransaction'] = {
          version: '1.0.0',
          supportedTransactionVersions: [0],
          signAndSendTransaction: async (...inputs: Array<{ transaction: Uint8Array }>) =>
            Promise.all(inputs.map(async (i) => ({ signature: fromB58(await sign(toB64(i.transaction), true)) }))),
        };
      }
      const wallet = { version: '1.0.0', name: cfg.name, icon: 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E', chains: cfg.chains, accounts: [account], features };
      const register = (api: { register(w: unknown): unknown }) => api.register(wallet);
      window.addEventListener('wallet-standard:app-ready', (e) => register((e as CustomEvent).detail));
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
    },
    { address: o.signer.address, publicKey, features: o.features.map((f) => `solana:${f}`), name: o.name ?? 'Test Solana Wallet', chains: o.chains ?? ['solana:devnet'] },
  );
  return w;
}
