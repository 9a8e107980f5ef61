// The Solana-family ChainAdapter: SPL token payments built, verified, broadcast and watched
// through the shared RpcPool. The only folder that imports @solana/*.
import { createLogger, type Log } from '../../log';
import type { ChainAdapter } from '../types';
import { watcherLog } from '../watcher-log';
import { isValidAddress, normalizeAddress } from './address';
import { broadcast } from './broadcast';
import { build } from './build';
import { createSolanaDetector } from './detect';
import { fetchSubmitted } from './fetch-submitted';
import { reuseBuild } from './reuse-build';
import { verifySubmission } from './verify-submission';
import { createWatcher } from './watcher';

export const solanaAdapter: ChainAdapter = {
  family: 'solana',
  isValidAddress,
  normalizeAddress,
  build,
  reuseBuild,
  verifySubmission,
  fetchSubmitted,
  broadcast,
  createWatcher: (network, rpc, report) => createWatcher(network, rpc, report),
  createDetector: (network, rpc, source) => createSolanaDetector(network, rpc, source),
};

/** The adapter with the server's logger for its watcher, so the configured logLevel applies. */
export function createSolanaAdapter(opts: { log?: Log } = {}): ChainAdapter {
  const log = opts.log ?? createLogger('warn');
  return {
    ...solanaAdapter,
    createWatcher: (network, rpc, report) => createWatcher(network, rpc, report, { log: watcherLog(log, 'solana watcher', network.chain) }),
  };
}
