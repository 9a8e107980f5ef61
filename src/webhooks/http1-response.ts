// Reading one HTTP/1.1 response off a socket, for the dispatcher's client (post-http1.ts): a
// status line and headers, then a body by Content-Length, chunked (extensions and trailers
// skipped) or up to the socket's end; interim 1xx responses are skipped. At most MAX_BODY bytes of
// body are read, the first KEEP_BODY kept (for lastError). Bytes are fed as they arrive; the state
// says when the response is complete and whether the socket may carry another request.

const MAX_HEAD = 16 * 1024;
const KEEP_BODY = 4096;
const MAX_BODY = 65536;
/** Where a response's bytes are: its head, a body by length, the parts of a chunked one, up to the socket's end. */
const Phase = { Head: 0, Length: 1, ChunkSize: 2, ChunkData: 3, ChunkEnd: 4, Trailer: 5, UntilClose: 6 } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

function keep(ex: ResponseState, part: Buffer): void {
  ex.total += part.length;
  if (ex.keptBytes < KEEP_BODY && part.length > 0) {
    ex.kept.push(part);
    ex.keptBytes += part.length;
  }
}

/** The response head: status, Location, and how the body is framed. false = malformed. */
function readHead(ex: ResponseState, head: string): boolean {
  const m = /^HTTP\/1\.([01]) (\d{3})/.exec(head);
  if (!m) return false;
  ex.status = Number(m[2]);
  let length: number | null = null;
  let chunked = false;
  let closeAfter = m[1] === '0';
  for (const line of head.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value) || (length !== null && length !== Number(value))) return false;
      length = Number(value);
    } else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value);
    else if (name === 'connection') closeAfter = /close/i.test(value) || (closeAfter && !/keep-alive/i.test(value));
    else if (name === 'location') ex.location = value;
  }
  ex.keepAlive = !closeAfter;
  if (ex.status === 204 || ex.status === 304) ex.phase = Phase.Length;
  else if (chunked) ex.phase = Phase.ChunkSize;
  else if (length !== null) ex.phase = Phase.Length;
  else {
    ex.phase = Phase.UntilClose;
    ex.keepAlive = false;
  }
  ex.left = ex.status === 204 || ex.status === 304 ? 0 : (length ?? 0);
  return true;
}

/** What the bytes so far make of a response: more needed, complete (socket reusable or not), or malformed. */
export const MORE = 0;
export const DONE = 1;
export const DONE_CLOSE = 2;
export type Verdict = typeof MORE | typeof DONE | typeof DONE_CLOSE | string;

/** Consume what has arrived. */
export function advance(ex: ResponseState): Verdict {
  for (;;) {
    if (ex.total > MAX_BODY) return DONE_CLOSE;
    switch (ex.phase) {
      case Phase.Head: {
        const end = ex.buf.indexOf('\r\n\r\n');
        if (end < 0) return ex.buf.length > MAX_HEAD ? 'response head too large' : MORE;
        const head = ex.buf.toString('latin1', 0, end);
        ex.buf = ex.buf.subarray(end + 4);
        if (!readHead(ex, head)) return 'malformed HTTP response';
        // An interim response (100 Continue, 103): the final one follows on the same socket.
        if (ex.status < 200) ex.phase = Phase.Head;
        break;
      }
      case Phase.Length:
      case Phase.ChunkData: {
        const take = Math.min(ex.left, ex.buf.length);
        keep(ex, ex.buf.subarray(0, take));
        ex.buf = ex.buf.subarray(take);
        ex.left -= take;
        if (ex.left > 0) return MORE;
        if (ex.phase === Phase.Length) return ex.keepAlive && ex.buf.length === 0 ? DONE : DONE_CLOSE;
        ex.phase = Phase.ChunkEnd;
        break;
      }
      case Phase.ChunkEnd:
        if (ex.buf.length < 2) return MORE;
        ex.buf = ex.buf.subarray(2);
        ex.phase = Phase.ChunkSize;
        break;
      case Phase.ChunkSize:
      case Phase.Trailer: {
        const i = ex.buf.indexOf('\r\n');
        if (i < 0) return ex.buf.length > MAX_HEAD ? 'malformed chunked body' : MORE;
        const line = ex.buf.toString('latin1', 0, i);
        ex.buf = ex.buf.subarray(i + 2);
        if (ex.phase === Phase.Trailer) {
          if (i === 0) return ex.keepAlive && ex.buf.length === 0 ? DONE : DONE_CLOSE;
          break;
        }
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) return 'malformed chunked body';
        ex.left = size;
        ex.phase = size === 0 ? Phase.Trailer : Phase.ChunkData;
        break;
      }
      case Phase.UntilClose:
        keep(ex, ex.buf);
        ex.buf = EMPTY;
        return ex.total > MAX_BODY ? DONE_CLOSE : MORE;
    }
  }
}

/** The state of a response being read (the client's exchange carries it). */
export interface ResponseState {
  phase: Phase;
  /** Bytes received and not consumed yet. */
  buf: Buffer;
  /** Body bytes still expected (by length, or of the current chunk). */
  left: number;
  status: number;
  location: string | null;
  keepAlive: boolean;
  kept: Buffer[];
  keptBytes: number;
  total: number;
}

const EMPTY = Buffer.alloc(0);

export function newResponse(): ResponseState {
  return { phase: Phase.Head, buf: EMPTY, left: 0, status: 0, location: null, keepAlive: false, kept: [], keptBytes: 0, total: 0 };
}

/** The start of the body read so far, UTF-8. */
export function bodyText(r: ResponseState): string {
  return r.keptBytes === 0 ? '' : Buffer.concat(r.kept).toString('utf8', 0, Math.min(r.keptBytes, KEEP_BODY));
}

/** A body that ends with the socket (no length, not chunked): the peer's end completes it. */
export function readsToEnd(r: ResponseState): boolean {
  return r.phase === Phase.UntilClose;
}
