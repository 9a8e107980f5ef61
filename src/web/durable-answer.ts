// Requests whose answer is already on disk when the route returns it, so the server's wait for
// durability before every response (src/server.ts: `durable()`, the commits made so far) can be
// skipped for them. A create answers with its own write, which settles only once the WAL sync
// covering its batch returned; everything the request read before that write (its key, its
// idempotency look-up) was committed before the batch's COMMIT, so the same sync covers it. The
// general wait would instead hold the answer for batches committed since by other requests (about
// one create in three under load waited for one more WAL sync it does not depend on).
// A route marks a request only for an answer made of its own settled write and earlier reads.

const answered = new WeakSet<Request>();

/** The route's answer is its own write's, already durable, plus reads made before that write. */
export function answeredFromDurableWrite(request: Request): void {
  answered.add(request);
}

/**
 * The answer shows nothing read from the database (liveness, readiness, metrics): it needs no
 * durability wait, and must not get one: after a failed sync every wait fails, and /readyz must
 * still answer its own 503 (and /healthz 200: the process is alive).
 */
export function answeredWithoutStoredState(request: Request): void {
  answered.add(request);
}

export function isAnsweredFromDurableWrite(request: Request): boolean {
  return answered.has(request);
}
