// The PayForge path of a lifecycle bench: POST /v1/intents -> the chain's build, sign, submit -> the
// intent.finalized webhook, per intent through pool(), with per-step p50s, CPU share, event-loop lag and RPC calls.
import type { ApiClient } from '../../test/support/server';
import type { Hooks } from './hooks';
import { lagProbe } from './lag';
import { summarize, type PhaseResult } from './phase';
import { pool } from './pool';
import { diffCalls } from './rpc-calls';
import { pct } from './stats';

export type PayForgeResult = PhaseResult & { hooks: Record<string, number>; recorded: { p50: number; p99: number }; stepP50: Record<string, number>; cpuShare: number; lagMs: { p50: number; p99: number; max: number } };

/** What a chain's build -> sign -> submit reports: the build's duration and when it was built and signed (performance.now()). */
export interface Paid {
  buildMs: number;
  builtAt: number;
  signedAt: number;
}

export interface PayForgePhase {
  api: ApiClient;
  hooks: Hooks;
  concurrency: number;
  /** The chain's RPC calls so far, by method. */
  counters: () => Promise<Record<string, number>>;
  /** The POST /v1/intents body for intent i. */
  intent: (i: number) => Record<string, unknown>;
  /**
   * POST .../build, sign, POST .../submit for intent i (created as `id`, `intent` the wire intent),
   * as buildSignSubmit() does, resolving once submit answered 200; or, on a wallet-sends path, the
   * wallet's own transfer from `intent.paymentUri`, resolving once the node took it.
   */
  pay: (id: string, i: number, intent: { paymentUri: string }) => Promise<Paid>;
}

/** POST .../build for `fulfiller`, sign the blob, POST .../submit: the PayForge client's part of one payment. */
export async function buildSignSubmit(api: ApiClient, id: string, fulfiller: string, sign: (blob: string) => Promise<string>): Promise<Paid> {
  const tb = performance.now();
  const built = await api.post(`/v1/intents/${id}/build`, { fulfiller });
  if (built.status !== 200) throw new Error(`build ${built.status} ${JSON.stringify(built.body).slice(0, 200)}`);
  const builtAt = performance.now();
  const signed = await sign(built.body.transaction.blob);
  const signedAt = performance.now();
  const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
  if (sub.status !== 200) throw new Error(`submit ${sub.status} ${JSON.stringify(sub.body).slice(0, 200)}`);
  return { buildMs: builtAt - tb, builtAt, signedAt };
}

export async function runPayForge(p: PayForgePhase, n: number, offset: number): Promise<PayForgeResult> {
  const { api, hooks } = p;
  const ids: string[] = new Array(n);
  const steps = { create: [] as number[], build: [] as number[], sign: [] as number[], submit: [] as number[], watch: [] as number[] };
  const hooksBefore = hooks.counts();
  const before = await p.counters();
  const cpu0 = process.cpuUsage();
  const lag = lagProbe();
  const r = await pool(n, p.concurrency, async (j) => {
    const i = offset + j;
    const t0 = performance.now();
    const created = await api.post('/v1/intents', p.intent(i));
    if (created.status !== 201) throw new Error(`create ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
    const t1 = performance.now();
    const id = (ids[j] = created.body.intent.id as string);
    const finalized = hooks.finalized(id, 60_000);
    finalized.catch(() => {}); // observed below; avoid an unhandled rejection if submit fails first
    const paid = await p.pay(id, i, created.body.intent);
    const t4 = performance.now();
    const t5 = await finalized;
    steps.create.push(t1 - t0);
    steps.build.push(paid.buildMs);
    steps.sign.push(paid.signedAt - paid.builtAt);
    steps.submit.push(t4 - paid.signedAt);
    steps.watch.push(t5 - t4);
    return t5 - t0;
  });
  const lagMs = lag.stop();
  const cpu = process.cpuUsage(cpu0);
  const cpuShare = (cpu.user + cpu.system) / 1e6 / r.seconds;
  const calls = diffCalls(await p.counters(), before);
  // PayForge's own timestamps (createdAt -> finalizedAt): the part before the webhook leaves.
  const recorded: number[] = [];
  for (const id of ids.filter(Boolean)) {
    const it = (await api.get(`/v1/intents/${id}`)).body.intent;
    if (it?.finalizedAt && it?.createdAt) recorded.push(Date.parse(it.finalizedAt) - Date.parse(it.createdAt));
  }
  const stepP50 = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, pct(v, 50)]));
  return { ...summarize(r, calls), hooks: diffCalls(hooks.counts(), hooksBefore), recorded: { p50: pct(recorded, 50), p99: pct(recorded, 99) }, stepP50, cpuShare, lagMs };
}
