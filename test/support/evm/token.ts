// Compiles test/support/evm/Token.sol with the solc npm package (offline) and deploys it on anvil.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import solc from 'solc';
import { createWalletClient, defineChain, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Anvil } from './anvil';
import { DEV_KEYS } from './anvil';

interface Artifact {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

let compiled: Record<string, Artifact> | null = null;

export function compileContracts(): Record<string, Artifact> {
  if (compiled) return compiled;
  const source = readFileSync(join(import.meta.dirname, 'Token.sol'), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'Token.sol': { content: source } },
    // paris: no PUSH0, so the bytecode runs on any EVM anvil emulates.
    settings: { evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  compiled = {};
  for (const [name, c] of Object.entries<any>(out.contracts['Token.sol'])) {
    compiled[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
  }
  return compiled;
}

export const tokenAbi = () => compileContracts().TestToken!.abi;

/** Deploys TestToken from dev account 0 (its owner) and mints `mints` to each holder. */
export async function deployToken(anvil: Anvil, mints: Record<string, bigint> = {}): Promise<Hex> {
  const { abi, bytecode } = compileContracts().TestToken!;
  const owner = ownerClient(anvil);
  const hash = await owner.deployContract({ abi, bytecode });
  const receipt = await owner.waitForTransactionReceipt({ hash });
  const address = receipt.contractAddress!;
  for (const [to, amount] of Object.entries(mints)) {
    const h = await owner.writeContract({ address, abi, functionName: 'mint', args: [to, amount] });
    await owner.waitForTransactionReceipt({ hash: h });
  }
  return address;
}

/** Puts the fake OP Stack GasPriceOracle at its predeploy address (L1 fee = 1 gwei per tx byte). */
export async function installFakeGasPriceOracle(anvil: Anvil): Promise<void> {
  await anvil.rpc('anvil_setCode', ['0x420000000000000000000000000000000000000F', compileContracts().FakeGasPriceOracle!.deployedBytecode]);
}

/** A viem client of dev account 0 (the token owner), for test control transactions. */
export function ownerClient(anvil: Anvil) {
  return createWalletClient({
    account: privateKeyToAccount(DEV_KEYS[0]),
    // A plain chain: viem's tempo chains would serialize Tempo-type (0x76) transactions.
    chain: defineChain({
      id: anvil.chainId,
      name: `anvil ${anvil.chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    }),
    transport: http(anvil.url),
  }).extend(publicActions);
}
