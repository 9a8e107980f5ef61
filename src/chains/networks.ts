// Built-in networks (contract section 2) merged with the config file's overrides.
// A key's mode decides which of these it may use.

import type { Config } from '../config.types';
import type { Network } from './types';

const USDC6 = (address: string) => ({ address, decimals: 6 });

const BUILT_IN: Network[] = [
  {
    chain: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', family: 'solana', mode: 'live', name: 'Solana mainnet-beta',
    rpc: ['https://api.mainnet-beta.solana.com'], confirmations: 1, pollIntervalMs: 1000, rebroadcastIntervalMs: 2000,
    tokens: { USDC: USDC6('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v') },
  },
  {
    chain: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', family: 'solana', mode: 'test', name: 'Solana devnet',
    rpc: ['https://api.devnet.solana.com'], confirmations: 1, pollIntervalMs: 1000, rebroadcastIntervalMs: 2000,
    tokens: { USDC: USDC6('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU') },
  },
  {
    chain: 'eip155:8453', family: 'evm', mode: 'live', name: 'Base', evmChainId: 8453, evmFeeModel: 'op-stack',
    rpc: ['https://mainnet.base.org'], confirmations: 1, pollIntervalMs: 1000, rebroadcastIntervalMs: 4000,
    tokens: { USDC: USDC6('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913') },
  },
  {
    chain: 'eip155:84532', family: 'evm', mode: 'test', name: 'Base Sepolia', evmChainId: 84532, evmFeeModel: 'op-stack',
    rpc: ['https://sepolia.base.org'], confirmations: 1, pollIntervalMs: 1000, rebroadcastIntervalMs: 4000,
    tokens: { USDC: USDC6('0x036CbD53842c5426634e7929541eC2318f3dCF7e') },
  },
  {
    chain: 'eip155:4217', family: 'evm', mode: 'live', name: 'Tempo', evmChainId: 4217, evmFeeModel: 'tempo',
    rpc: ['https://rpc.tempo.xyz'], confirmations: 1, pollIntervalMs: 500, rebroadcastIntervalMs: 2000,
    tokens: {
      USDC: USDC6('0x20C000000000000000000000b9537d11c60E8b50'),
      pathUSD: USDC6('0x20C0000000000000000000000000000000000000'),
      USDT0: USDC6('0x20C00000000000000000000014f22CA97301EB73'),
    },
  },
  {
    chain: 'eip155:42431', family: 'evm', mode: 'test', name: 'Tempo Moderato', evmChainId: 42431, evmFeeModel: 'tempo',
    rpc: ['https://rpc.moderato.tempo.xyz'], confirmations: 1, pollIntervalMs: 500, rebroadcastIntervalMs: 2000,
    tokens: {
      pathUSD: USDC6('0x20c0000000000000000000000000000000000000'),
      AlphaUSD: USDC6('0x20c0000000000000000000000000000000000001'),
      BetaUSD: USDC6('0x20c0000000000000000000000000000000000002'),
      ThetaUSD: USDC6('0x20c0000000000000000000000000000000000003'),
    },
  },
];

export const BUILT_IN_CHAINS: readonly string[] = BUILT_IN.map((n) => n.chain);

/** The effective network table: built-ins with config overrides applied (unknown chains are refused by config validation). */
export function resolveNetworks(config: Pick<Config, 'networks'>): Map<string, Network> {
  const out = new Map<string, Network>();
  for (const base of BUILT_IN) {
    const o = config.networks[base.chain] ?? {};
    out.set(base.chain, {
      ...base,
      rpc: o.rpc ?? base.rpc,
      confirmations: o.confirmations ?? base.confirmations,
      pollIntervalMs: o.pollIntervalMs ?? base.pollIntervalMs,
      rebroadcastIntervalMs: o.rebroadcastIntervalMs ?? base.rebroadcastIntervalMs,
      tokens: { ...base.tokens, ...(o.tokens ?? {}) },
    });
  }
  return out;
}
