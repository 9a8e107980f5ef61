// Small facts about an EVM network the verbs share.
import type { Network } from '../types';

/** The numeric chain id: the configured one, else the CAIP-2 reference ("eip155:84532"). */
export function chainIdOf(network: Network): number {
  if (network.evmChainId !== undefined) return network.evmChainId;
  const ref = Number(network.chain.split(':')[1]);
  if (!Number.isSafeInteger(ref)) throw new Error(`network ${network.chain} has no EVM chain id`);
  return ref;
}
