// GET /metrics in the Prometheus text format: live actors, commits, webhook and RPC health.
import type { ChainWatch } from './actors/chain-watch';
import type { Runtime } from './actors/runtime';
import type { ChainRegistry } from './chains/registry';
import type { DeliveryRepo } from './store/webhook-deliveries';
import type { Dispatcher } from './webhooks/dispatcher';

export interface MetricsSources {
  runtime: Runtime;
  /** The SQLite group committer's counters; null on a store without one (PostgreSQL). */
  commits: (() => { batches: number; writes: number; syncs: number; gateWaits: number; gateWaitMs: number; writerBatches: number; writerWrites: number }) | null;
  deliveries: Pick<DeliveryRepo, 'countPending'>;
  dispatcher: Dispatcher;
  chainWatch: ChainWatch;
  chains: ChainRegistry;
}

export async function renderMetrics(p: MetricsSources): Promise<string> {
  const lines: string[] = [];
  const gauge = (name: string, help: string, value: number, labels = '') => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}${labels} ${value}`);
  };
  gauge('payforge_live_actors', 'Live intents followed (deadline or chain watch), as their rows say', p.runtime.liveIntents());
  gauge('payforge_watched_transactions', 'Transactions followed on chain', p.chainWatch.watchedCount());
  gauge('payforge_unwritten_chain_reports', 'Intents whose chain report failed to be written and is being written again', p.chainWatch.unwrittenCount());
  const c = p.commits?.();
  if (c) {
    gauge('payforge_commit_batches_total', "Group-commit transactions (the event loop's and the intent writer thread's)", c.batches);
    gauge('payforge_commit_writes_total', 'Writes committed (across batches)', c.writes);
    gauge('payforge_writer_batches_total', 'Transactions of the intent writer thread (creates, at synchronous=FULL)', c.writerBatches);
    gauge('payforge_writer_writes_total', 'Creates the intent writer thread committed', c.writerWrites);
    gauge('payforge_commit_syncs_total', 'WAL syncs off the event loop (each makes one or more batches durable)', c.syncs);
    gauge('payforge_commit_gate_waits_total', "Batches that waited for another thread's transaction (webhook dispatcher, intent writer) to end before BEGIN", c.gateWaits);
    gauge('payforge_commit_gate_wait_seconds_total', "Time those batches waited (not blocking the event loop)", c.gateWaitMs / 1000);
  }
  // Bench/boot reads it for memory per live intent (heap, beside the process's resident size).
  gauge('payforge_heap_used_bytes', 'JavaScript heap in use', process.memoryUsage().heapUsed);
  const d = p.dispatcher.stats();
  gauge('payforge_webhook_in_flight', 'Webhook sends in flight', d.inFlight);
  gauge('payforge_webhook_attempts_total', 'Webhook attempts since start', d.attempts);
  gauge('payforge_webhook_delivered_total', 'Webhook deliveries succeeded since start', d.delivered);
  gauge('payforge_webhook_failed_total', 'Webhook deliveries given up since start', d.failed);
  gauge('payforge_webhook_backlog', 'Deliveries waiting to be sent', await p.deliveries.countPending());
  lines.push('# HELP payforge_rpc_upstream_open Upstream circuit breaker open (1) or not (0)', '# TYPE payforge_rpc_upstream_open gauge');
  for (const pool of p.chains.pools()) {
    // Upstream labels are redacted by the pool (URLs often carry API keys).
    for (const u of pool.status()) {
      lines.push(`payforge_rpc_upstream_open{chain="${pool.chain}",upstream="${u.url.replace(/["\\\n]/g, '')}"} ${u.state === 'open' ? 1 : 0}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
