// `serve --inspect[=ws://host:port]`: send every lifecycle actor's inspection events to a Stately
// inspector. `--inspect` alone uses the Sky inspector (needs outbound internet; the live URL is
// logged once); `--inspect ws://…` sends them to a local WebSocket receiver, so inspection works on
// a VM with no internet. An unreachable inspector is ONE warning line, never a repeated one.
import type { InspectionEvent } from 'xstate';
import type { Log } from '../log';

export type InspectTarget = true | string;
type Inspect = (e: InspectionEvent) => void;

export async function createStatelyInspector(target: InspectTarget, log: Log): Promise<Inspect> {
  return target === true ? sky(log) : local(target, log);
}

/** Local receiver: the library's WebSocket adapter (buffers 200 events, retries quietly every 5 s). */
async function local(url: string, log: Log): Promise<Inspect> {
  const { createWebSocketInspector } = await import('@statelyai/inspect');
  const inspector = createWebSocketInspector({ url });
  // The adapter reports nothing itself: probe once so the operator learns the state exactly once.
  void probe(url).then((ok) =>
    ok
      ? log('info', 'stately inspector connected', { url })
      : log('warn', 'stately inspector unreachable; events are buffered and sent when it comes up (no further warnings)', { url }),
  );
  return inspector.inspect as Inspect;
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      ws.onopen = ws.onerror = ws.onclose = null;
      ws.close();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 3_000);
    ws.onopen = () => done(true);
    ws.onerror = () => done(false);
    ws.onclose = () => done(false);
  });
}

/**
 * The Sky inspector, as @statelyai/inspect's createSkyInspector builds it, but logging through
 * log.ts: its own version prints the URL with console.log on every reconnect (stdout is the CLI's
 * JSON) and calls onerror on every retry (a warning every ~3 s offline).
 */
async function sky(log: Log): Promise<Inspect> {
  const [{ createInspector }, { default: PartySocket }, { stringify }] = await Promise.all([
    import('@statelyai/inspect'),
    import('partysocket'),
    import('superjson'),
  ]);
  const sessionId = crypto.randomUUID();
  const socket = new PartySocket({ host: 'stately-sky-beta.mellson.partykit.dev', room: `inspect-${sessionId}` });
  const url = `https://stately.ai/registry/inspect/${sessionId}`;
  let announced = false;
  let warned = false;
  socket.onopen = () => {
    if (!announced) log('info', 'stately inspector: open this live URL', { url });
    announced = true;
  };
  socket.onerror = (e: unknown) => {
    if (!warned) log('warn', 'stately inspector unreachable (it needs internet); retrying quietly. Offline, use --inspect ws://host:port', { error: String((e as { message?: string })?.message ?? e) });
    warned = true;
  };
  const inspector = createInspector({ send: (event) => socket.send(stringify(event)) });
  return inspector.inspect as Inspect;
}
