// The markdown report of a lifecycle bench: the machine, the bench's setup, baseline vs PayForge, PayForge's breakdown, RPC calls by method.
import { machine } from './machine';
import type { PayForgeResult } from './payforge-phase';
import type { PhaseResult } from './phase';
import { callsTable, sum } from './rpc-calls';

export const isoNow = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

const ms = (x: number) => x.toFixed(0);

export function lifecycleReport(r: {
  date: string;
  /** What ran: the chain, N, concurrency, poll intervals. */
  setup: string;
  /** The baseline's row label: what the chain's own send-and-confirm does. */
  baseline: string;
  base: PhaseResult;
  pf: PayForgeResult;
  /** The wallet-sends path (payer broadcasts from paymentUri, PayForge detects), with its row label. */
  wallet?: { label: string; result: PayForgeResult };
  /** Also print the event-loop lag's max. */
  lagMax?: boolean;
}): string {
  const { base, pf } = r;
  const w = r.wallet?.result;
  const ratio = pf.perSecond / base.perSecond;
  return [
    `Run ${r.date} · ${machine()}`,
    r.setup,
    '',
    '| path | done | intents/s | p50 ms | p99 ms | max ms | RPC calls / intent | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.baseline} | ${base.ok}/${base.n} | ${base.perSecond.toFixed(1)} | ${ms(base.p50)} | ${ms(base.p99)} | ${ms(base.max)} | ${(sum(base.calls) / base.n).toFixed(2)} | ${base.errors.length} |`,
    `| PayForge create -> build -> sign -> submit -> intent.finalized webhook | ${pf.ok}/${pf.n} | ${pf.perSecond.toFixed(1)} | ${ms(pf.p50)} | ${ms(pf.p99)} | ${ms(pf.max)} | ${(sum(pf.calls) / pf.n).toFixed(2)} | ${pf.errors.length} |`,
    ...(w ? [`| ${r.wallet!.label} | ${w.ok}/${w.n} | ${w.perSecond.toFixed(1)} | ${ms(w.p50)} | ${ms(w.p99)} | ${ms(w.max)} | ${(sum(w.calls) / w.n).toFixed(2)} | ${w.errors.length} |`] : []),
    '',
    `PayForge / baseline: **${(ratio * 100).toFixed(1)} %** (intents/s). ` +
      `PayForge process (server, driver, receiver) during the run: ${(pf.cpuShare * 100).toFixed(0)} % of one core, event-loop lag p50 ${ms(pf.lagMs.p50)} ms, p99 ${ms(pf.lagMs.p99)} ms${r.lagMax ? `, max ${ms(pf.lagMs.max)} ms` : ''}. ` +
      `PayForge steps, p50 ms: create ${ms(pf.stepP50.create!)}, build ${ms(pf.stepP50.build!)}, sign ${ms(pf.stepP50.sign!)}, submit ${ms(pf.stepP50.submit!)}, submit answered -> intent.finalized webhook ${ms(pf.stepP50.watch!)}. ` +
      `PayForge's own createdAt -> finalizedAt: p50 ${ms(pf.recorded.p50)} ms, p99 ${ms(pf.recorded.p99)} ms. ` +
      `Webhooks received: ${Object.entries(pf.hooks).map(([k, v]) => `${k} ${v}`).join(', ')}.` +
      (w
        ? ` Wallet sends / baseline: **${((w.perSecond / base.perSecond) * 100).toFixed(1)} %**; its steps, p50 ms: create ${ms(w.stepP50.create!)}, ` +
          `the wallet composes, signs and sends ${ms(w.stepP50.submit!)}, sent -> detected -> intent.finalized webhook ${ms(w.stepP50.watch!)}; ` +
          `webhooks: ${Object.entries(w.hooks).map(([k, v]) => `${k} ${v}`).join(', ')}.`
        : ''),
    '',
    ...callsTable(pf.n, pf.calls, base.calls, base.n, w ? { n: w.n, calls: w.calls } : undefined),
  ].join('\n');
}
