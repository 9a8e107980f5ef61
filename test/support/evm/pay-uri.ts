// A payer's wallet paying an EVM intent from its `paymentUri` alone (EIP-681, read by
// eth-url-parser as wallets do): a viem wallet client sends the token transfer with its own
// nonce and gas, as MetaMask does; no build, no submit. Returns the hash and the mined receipt.
import { parse as parseEip681 } from 'eth-url-parser';
import { createWalletClient, defineChain, erc20Abi, http, publicActions, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import type { Anvil } from './anvil';

export async function payFromUri(anvil: Anvil, payer: PrivateKeyAccount, paymentUri: string): Promise<{ hash: Hex; receipt: TransactionReceipt }> {
  const req = parseEip681(paymentUri);
  const wallet = createWalletClient({
    account: payer,
    chain: defineChain({ id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.url] } } }),
    transport: http(anvil.url),
    pollingInterval: 50,
  }).extend(publicActions);
  const hash = await wallet.writeContract({
    address: req.target_address as Hex, abi: erc20Abi, functionName: 'transfer',
    args: [req.parameters!.address as Hex, BigInt(req.parameters!.uint256!)],
  });
  return { hash, receipt: await wallet.waitForTransactionReceipt({ hash }) };
}
