// What every intent verb is handed: the runtime (write path), read repositories, chains and
// screening. Built once by src/server.ts; tests build it the same way on a temp database.
import type { Runtime } from '../actors/runtime';
import type { ChainRegistry } from '../chains/registry';
import type { Config } from '../config.types';
import type { Screener } from '../screening/screener';
import type { IdempotencyRepo } from '../store/idempotency';
import type { IntentRepo } from '../store/intents';

export interface Services {
  config: Config;
  runtime: Runtime;
  intents: IntentRepo;
  idempotency: IdempotencyRepo;
  chains: ChainRegistry;
  screener: Screener;
  /** Idempotency keys of create requests still in flight (account:mode:key). */
  inFlight: Set<string>;
}
