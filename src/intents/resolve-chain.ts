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
    if (network.family === 'evm' && typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) {
      throw invalidParam(param, `${param} does not match its EIP-55 checksum (its mixed case): a mistyped address? Check it, or send it all lower-case.`);
    }
    throw invalidParam(param, `${param} must be a valid ${network.family === 'evm' ? 'EVM (0x + 40 hex)' : 'Solana (base58)'} address.`);
  }
  return adapter.normalizeAddress(value);
}

/**
 * Refuse an address that can never usefully send or receive the token (400 on `param`): the EVM
 * zero address (token contracts refuse it; money sent there is burned) and the token's own
 * contract or mint (tokens sent there are stuck for good). Both are integrators' slips (a swapped
 * field, an unset value) that would otherwise only show once a payer's money is gone.
 */
export function refuseSink(network: Network, tokenAddress: string, param: string, address: string): void {
  const evm = network.family === 'evm';
  if (evm && /^0x0{40}$/i.test(address)) throw invalidParam(param, `${param} must not be the zero address.`);
  if (evm ? address.toLowerCase() === tokenAddress.toLowerCase() : address === tokenAddress) {
    throw invalidParam(param, `${param} is the token's own ${evm ? 'contract' : 'mint'}: tokens sent there are lost.`);
  }
}

/**
 * Refuse a fulfiller that is the requestor (400 on `param`): a wallet paying itself moves no money,
 * yet on EVM its transfer carries Transfer(from = signer, to = requestor, amount), which read as
 * paid (contract 14: paid means money moved). Addresses as resolveAddress returns them.
 */
export function refuseSelfPayment(param: string, fulfiller: string, requestor: string): void {
  if (fulfiller.toLowerCase() === requestor.toLowerCase()) {
    throw invalidParam(param, `${param} is the requestor: a wallet cannot pay itself (no money would move).`);
  }
}
