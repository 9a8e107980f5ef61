// Spans of the work that can hold the server back: a checkpoint pass and its hold of the commits,
// the live resync, a group-commit batch on the event loop, a batch's wait for its fsync. They go
// to a sink only when one is set (bench/create sets one to explain its latency tail, see
// bench/support/timeline.ts); without one a span costs a null check.
/**
 * commit.batch: BEGIN..COMMIT of one group-commit batch (on the event loop); commit.durable: its
 * COMMIT to its fsync's return; commit.wait: its oldest write's queueing to that return.
 */
export type SpanKind = 'checkpoint.pass' | 'checkpoint.hold' | 'checkpoint.flush' | 'resync' | 'commit.batch' | 'commit.durable' | 'commit.wait';

export interface Span {
  kind: SpanKind;
  /** performance.now() when it began. */
  start: number;
  ms: number;
  /** What it covered: frames (checkpoint), live heads (resync), writes (commit). */
  n: number;
}

let sink: ((s: Span) => void) | null = null;

/** Route spans to `s` (null: stop). One sink per process. */
export function setTraceSink(s: ((s: Span) => void) | null): void {
  sink = s;
}

/** performance.now() when a sink is set, else 0 (so untraced code does not even read the clock). */
export const traceStart = (): number => (sink ? performance.now() : 0);

/** The span from `start` (traceStart()) to now; nothing without a sink or when it began untraced. */
export function span(kind: SpanKind, start: number, n = 0): void {
  if (sink && start > 0) sink({ kind, start, ms: performance.now() - start, n });
}
