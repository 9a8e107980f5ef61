// The upstream pool contract shared by both chain families (JSON-RPC 2.0 over HTTP).
import { AppError, type ErrorDetails } from '../domain/errors';

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface RpcPool {
  /** The network this pool serves (CAIP-2), for logs and error details. */
  readonly chain: string;
  /**
   * Send one JSON-RPC payload (object or batch array) and return the parsed JSON body.
   * Transport failures (connect error, timeout, HTTP 5xx/429, unparseable body) fail over to
   * the next healthy upstream; JSON-RPC error objects are answers, returned as they are.
   * Throws AppError rpc.unavailable (details.retry_after) when no upstream answers.
   */
  request(payload: unknown): Promise<unknown>;
  /** Convenience: one call; throws RpcCallError when the answer is a JSON-RPC error. */
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /**
   * A view of this pool bound to ONE upstream (the first whose breaker admits a call), with no
   * failover: every read behind one verdict must come from the same node (contract section 14).
   * A transport failure throws AppError rpc.unavailable; the caller abandons the decision and
   * tries again next tick (a new pin may land on another upstream). `pin()` of a pin is itself.
   */
  pin(): RpcPool;
  /**
   * One pinned view per upstream whose breaker is not open, in configured order: a decision the
   * first node cannot make (Solana: its history does not reach back far enough) is made again,
   * whole, on the next one. A pinned view answers [itself]. Absent on test doubles.
   */
  pinEach?(): RpcPool[];
  /** Label of the upstream a pinned view uses (null on the pool itself). */
  readonly pinnedTo: string | null;
  /** Upstream health for /metrics and the dashboard. */
  status(): Array<{ url: string; state: 'closed' | 'open' | 'half_open'; failures: number }>;
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcCallError';
  }
}

/**
 * rpc.unavailable from the pool. `mayHaveReached` is false only when no attempt could have
 * reached an upstream (refused connections, breakers skipping): a broadcast that failed so
 * certainly was not sent (contract 7); a timeout or a 5xx after the request left may have been.
 */
export class RpcUnavailableError extends AppError {
  constructor(
    message: string,
    readonly mayHaveReached: boolean,
    opts: { details: ErrorDetails; cause?: unknown },
  ) {
    super('rpc.unavailable', message, opts);
  }
}
