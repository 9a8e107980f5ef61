// The Solana-family ChainAdapter: SPL token payments built, verified, broadcast and watched
// through the shared RpcPool. The only folder that imports @solana/*.
import type { ChainAdapter } from '../types';
import { isValidAddress, normalizeAddress } from './address';
import { broadcast } from './broadcast';
import { build } from './build';
import { fetchSubmitted } from './fetch-submitted';
import { verifySubmission } from './verify-submission';
import { createWatcher } from './watcher';

export const solanaAdapter: ChainAdapter = {
  family: 'solana',
  isValidAddress,
  normalizeAddress,
  build,
  verifySubmission,
  fetchSubmitted,
  broadcast,
  createWatcher: (network, rpc, report) => createWatcher(network, rpc, report),
};
