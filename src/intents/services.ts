// What every intent verb is handed: the runtime (write path), read repositories, chains and
// screening. Built once by src/server.ts; tests build it the same way on a temp database.
import type { Runtime } from '../actors/runtime';
import type { ChainRegistry } from '../chains/registry';
import type { Config } from '../config.types';
import type { Screener } from '../screening/screener';
import type { IdempotencyRepo } from '../store/idempotency';
import type { DetectionRepo } from '../store/detection';
import type { IntentRepo } from '../store/intents';
import type { SubmissionRepo } from '../store/submissions';
import type { Log } from '../log';
import type { PaymentRepo } from '../store/payments';

export interface Services {
  config: Config;
  runtime: Runtime;
  intents: IntentRepo;
  idempotency: IdempotencyRepo;
  chains: ChainRegistry;
  screener: Screener;
  /** The ledger of transfers found on chain, and what the detectors read and write. */
  payments: PaymentRepo;
  detection: DetectionRepo;
  /** Write-ahead records of transactions told to PayForge (contract 11, crash windows). */
  submissions: SubmissionRepo;
  log: Log;
  /** Test-only fault injection (createCore option, never from config or HTTP). */
  faults?: SubmitFaults;
}

export interface SubmitFaults {
  /** Runs inside the write that records a broadcast as sent; throwing makes that commit fail. */
  afterBroadcast?: (intentId: string) => void;
  /**
   * Runs inside the write of each chain watcher report; `failCommit()` makes that transaction's
   * COMMIT fail after every statement succeeded (throwing fails the write before it).
   */
  chainReport?: (report: { intentId: string; type: string }, fault: { failCommit: () => void }) => void;
}
