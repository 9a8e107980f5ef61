// The EVM chain adapter: Base / Base Sepolia (ERC-20 USDC, op-stack fees) and Tempo / Tempo
// Moderato (TIP-20, fee in the token) are networks of this one adapter; each verb is its own file.
import { createLogger, type Log } from '../../log';
import type { ChainAdapter } from '../types';
import { watcherLog } from '../watcher-log';
import { isValidAddress, normalizeAddress } from './address';
import { broadcastSigned } from './broadcast';
import { buildTransfer } from './build';
import { createEvmDetector } from './detect';
import { reuseTransfer } from './reuse-build';
import { fetchSubmitted } from './fetch-submitted';
import { verifyTransfer } from './verify';
import { createEvmWatcher } from './watcher';

export const evmAdapter: ChainAdapter = {
  family: 'evm',
  isValidAddress,
  normalizeAddress,
  build: (network, rpc, intent, fulfiller) => buildTransfer({ network, rpc, intent, fulfiller }),
  reuseBuild: (network, rpc, intent, fulfiller, buildData) => reuseTransfer(network, rpc, intent, fulfiller, buildData),
  verifySubmission: (network, rpc, intent, signedTransactionBase64) =>
    verifyTransfer({ network, rpc, intent, signedTransactionBase64 }),
  fetchSubmitted,
  broadcast: (_network, rpc, submission) => broadcastSigned(rpc, submission),
  createWatcher: (network, rpc, report) => createEvmWatcher(network, rpc, report),
  createDetector: (network, rpc, source) => createEvmDetector(network, rpc, source),
};

/** The adapter with the server's logger for its watcher, so the configured logLevel applies. */
export function createEvmAdapter(opts: { log?: Log } = {}): ChainAdapter {
  const log = opts.log ?? createLogger('warn');
  return {
    ...evmAdapter,
    createWatcher: (network, rpc, report) => createEvmWatcher(network, rpc, report, { log: watcherLog(log, 'evm watcher', network.chain) }),
  };
}
