// Chain, token and address checks for a caller's mode: CAIP-2 format, the mode's networks,
// the network's token table, and address syntax for the chain family.
import type { Network, TokenConfig } from '../chains/types';
import type { ChainRegistry } from '../chains/registry';
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';

const CAIP2_RE = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

export function resolveNetwork(chains: ChainRegistry, caller: Caller, chain: unknown): Network {
  if (typeof chain !== 'string' || !CAIP2_RE.test(chain)) {
    throw invalidParam('chain', 'chain must be a CAIP-2 chain id such as eip155:84532 or solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1.');
  }
  const network = chains.network(chain);
  if (network?.mode === caller.mode) return network;
  // Only a refusal lists the mode's chains (nothing to build on every create).
  const inMode = [...chains.networks.values()].filter((n) => n.mode === caller.mode).map((n) => n.chain);
  if (!network) {
    throw new AppError('chain.unsupported', `Chain ${chain} is not supported; with a ${caller.mode} key use one of ${inMode.join(', ')}.`, {
      param: 'chain',
      details: { supported: inMode },
    });
  }
  throw new AppError('chain.unavailable_in_mode', `Chain ${chain} (${network.name}) is not available with a ${caller.mode} key; use one of ${inMode.join(', ')}.`, {
    param: 'chain',
    details: { chain, mode: caller.mode, available: inMode },
  });
}

export function resolveToken(network: Network, token: unknown): TokenConfig {
  if (typeof token !== 'string' || token.length === 0) throw invalidParam('token', 'token must be a token symbol such as USDC.');
  // Own keys only: "constructor" or "__proto__" must be an unknown symbol, not Object.prototype's.
  const cfg = Object.hasOwn(network.tokens, token) ? network.tokens[token] : undefined;
  if (!cfg) {
    const available = Object.keys(network.tokens);
    throw new AppError('token.unavailable_on_chain', `Token ${token} is not available on ${network.chain}; use one of ${available.join(', ')}.`, {
      param: 'token',
      details: { chain: network.chain, available },
    });
  }
  return cfg;
}

/** Validate and normalize a wallet address for the network's family. */
export function resolveAddress(chains: ChainRegistry, network: Network, param: string, value: unknown): string {
  const adapter = chains.adapter(network.family);
  if (typeof value !== 'string' || !adapter.isValidAddress(value)) {
    throw invalidParam(param, `${param} must be a valid ${network.family === 'evm' ? 'EVM (0x + 40 hex)' : 'Solana (base58)'} address.`);
  }
  return adapter.normalizeAddress(value);
}
