// The EVM chain adapter: Base / Base Sepolia (ERC-20 USDC, op-stack fees) and Tempo / Tempo
// Moderato (TIP-20, fee in the token) are networks of this one adapter; each verb is its own file.
import type { ChainAdapter } from '../types';
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
