// An RPC proxy that kills the server at the worst instant of a submit: it forwards the broadcast
// (Solana sendTransaction, EVM eth_sendRawTransaction) to the real chain, waits for the chain's
// answer, then runs `onBroadcast` (SIGKILL the server) and drops the connection unanswered.
// Or it forwards the broadcast and answers HTTP 500 (outcome unknown to PayForge).
// Every other call is forwarded as it is.
import { createServer, type Server } from 'node:http';

const BROADCASTS = new Set(['sendTransaction', 'eth_sendRawTransaction']);

export interface CrashProxy {
  url: string;
  /** Run once, on the next broadcast that reached the chain (then the connection is dropped). */
  armOnce(onBroadcast: () => void): void;
  /** The next broadcast reaches the chain, but its answer is replaced by an HTTP 500. */
  loseNextAnswer(): void;
  /** Broadcasts forwarded to the chain (answered or not). */
  broadcasts: number;
  stop(): Promise<void>;
}

function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.map((c) => String((c as { method?: unknown })?.method));
  } catch {
    return [];
  }
}

export async function startCrashProxy(target: string): Promise<CrashProxy> {
  let armed: (() => void) | null = null;
  let lose = false;
  const state = { broadcasts: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const isBroadcast = methodsOf(body).some((m) => BROADCASTS.has(m));
    let answer: Response;
    try {
      answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch {
      res.writeHead(502).end();
      return;
    }
    const text = await answer.text();
    if (isBroadcast) {
      state.broadcasts += 1;
      const hook = armed;
      armed = null;
      if (hook) {
        hook();
        req.socket.destroy();
        return;
      }
      if (lose) {
        lose = false;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream lost the answer');
        return;
      }
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    armOnce(fn: () => void) {
      armed = fn;
    },
    loseNextAnswer() {
      lose = true;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  });
}
