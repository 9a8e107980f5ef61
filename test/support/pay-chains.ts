// The two local chains the submit and fault end-to-end files pay on: anvil as Base (a block every
// 0.2 s) with a USDC-like token funding the EVM payer, and the local Solana with devnet USDC's mint
// and a new payer holding SOL and USDC. The caller stops both (its afterAll).
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { Hex } from 'viem';
import { startAnvil, type Anvil } from './evm/anvil';
import { deployToken } from './evm/token';
import { DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from './solana/local-solana';

export interface PayChains {
  anvil: Anvil;
  sol: LocalSolana;
  /** The token's address on anvil; `payer` holds 1,000 of it (6 decimals). */
  usdc: Hex;
  /** Holds 10 SOL and 1,000 devnet USDC. */
  solPayer: KeyPairSigner;
}

export async function startPayChains(payer: Hex): Promise<PayChains> {
  const [anvil, sol] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startLocalSolana({ slotMs: 40 })]);
  try {
    const usdc = await deployToken(anvil, { [payer]: 1_000_000_000n });
    sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
    const solPayer = await generateKeyPairSigner();
    sol.airdrop(solPayer.address, 10_000_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, solPayer.address, 1_000_000_000n);
    return { anvil, sol, usdc, solPayer };
  } catch (e) {
    // Nothing was handed back for the caller to stop.
    await Promise.all([anvil.stop(), sol.stop()]);
    throw e;
  }
}
