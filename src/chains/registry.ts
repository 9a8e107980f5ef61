// Networks, adapters and RPC pools by chain id: the one place verbs and the runtime ask
// "which adapter and which upstreams serve this chain".
import type { Config } from '../config.types';
import type { ChainFamily } from '../domain/intent';
import { createRpcPool } from '../rpc/pool';
import type { RpcPool } from '../rpc/types';
import { resolveNetworks } from './networks';
import type { ChainAdapter, Network } from './types';

export interface ChainRegistry {
  networks: Map<string, Network>;
  network(chain: string): Network | undefined;
  adapter(family: ChainFamily): ChainAdapter;
  pool(chain: string): RpcPool;
  /** The pools created so far (a network never used has none), for /metrics. */
  pools(): RpcPool[];
}

export function createChainRegistry(config: Config, adapters: Record<ChainFamily, ChainAdapter>): ChainRegistry {
  const networks = resolveNetworks(config);
  const pools = new Map<string, RpcPool>();
  return {
    networks,
    network: (chain) => networks.get(chain),
    adapter: (family) => adapters[family],
    pools: () => [...pools.values()],
    pool(chain) {
      let p = pools.get(chain);
      if (!p) {
        const n = networks.get(chain);
        if (!n) throw new Error(`unknown chain ${chain}`);
        p = createRpcPool({
          chain,
          urls: n.rpc,
          timeoutMs: config.rpc.timeoutMs,
          breakerFailures: config.rpc.breakerFailures,
          breakerCooldownMs: config.rpc.breakerCooldownMs,
          retryAfterSeconds: config.rpc.retryAfterSeconds,
        });
        pools.set(chain, p);
      }
      return p;
    },
  };
}
