// Starts one payment detector per network (contract section 11) beside the chain watchers, and
// feeds what they find to recordFoundTransfer. Detectors read their work from committed rows
// (receivers of live intents and of intents closed within detection.lookbackSeconds).
import type { Detector, DetectionSource } from '../chains/types';
import { recordFoundTransfer } from './record-found-transfer';
import type { Services } from './services';

export interface Detection {
  stop(): Promise<void>;
}

export function startDetectors(s: Services, log: (msg: string, fields: Record<string, unknown>) => void): Detection {
  const detectors: Detector[] = [];
  for (const network of s.chains.networks.values()) {
    const adapter = s.chains.adapter(network.family);
    if (!adapter.createDetector) continue;
    const chain = network.chain;
    const since = () => Date.now() - s.config.detection.lookbackSeconds * 1000;
    const source: DetectionSource = {
      receivers: async () => s.detection.receivers(chain, since()),
      references: async () => s.detection.references(chain, since()),
      unfinalized: async () => s.detection.unfinalizedMatches(chain),
      getCursor: async (key) => s.detection.getCursor(chain, key),
      setCursor: async (key, value) => s.detection.setCursor(chain, key, value, Date.now()),
      report: async (t) => void (await recordFoundTransfer(s, t)),
      log,
    };
    detectors.push(adapter.createDetector(network, s.chains.pool(chain), source));
  }
  return { stop: async () => void (await Promise.all(detectors.map((d) => d.stop()))) };
}
