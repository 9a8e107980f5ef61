// startLocalSolana(): a LiteSVM-backed Solana JSON-RPC server on a free port for tests and demos,
// with switches for dropped transactions and dead upstreams, and helpers to mint and fund.
import { address, lamports, none, some } from '@solana/kit';
import {
  AccountState,
  findAssociatedTokenPda,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { LocalChain, type ChainOptions, type NodeView } from './chain';
import { createHistory } from './history';
import { createHandlers, dispatch, type RpcCounters } from './rpc-server';

export const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
export const DEVNET_CHAIN = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** 'ok' serves; 'http500' answers every request with HTTP 500; 'down' closes the port. */
export type Health = 'ok' | 'http500' | 'down';

/** One JSON-RPC endpoint in front of the shared chain, with its own view of it. */
export interface LocalNode {
  url: string;
  /** How this node sees the chain; change it at any time (e.g. firstAvailableSlot = chain.slot: restarted from a snapshot, no history). */
  view: NodeView;
  /** RPC calls by method, and methods that were called but are not served. */
  counters: RpcCounters;
  resetCounters(): void;
  setHealth(h: Health): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalSolana {
  url: string;
  chain: LocalChain;
  /** The main node's view of the chain (in sync, full history unless changed). */
  view: NodeView;
  /** RPC calls by method, and methods that were called but are not served. */
  counters: RpcCounters;
  resetCounters(): void;
  /** Throws if any unserved method was called (fakes throw on the unexpected). */
  assertNoUnexpectedCalls(): void;
  setHealth(h: Health): Promise<void>;
  /** Another RPC node on the same chain (another URL), e.g. one that is behind or has no history. */
  addNode(view?: Partial<NodeView>): Promise<LocalNode>;
  /** Accept sendTransaction but never land anything while on. */
  setDropTransactions(on: boolean): void;
  createMint(opts: { address: string; decimals: number; tokenProgram?: string; supply?: bigint }): void;
  airdrop(owner: string, lamports: bigint): void;
  /** Create or overwrite the owner's associated token account (or the token account at `at`) with this balance (and a delegate allowed `delegatedAmount`). */
  setTokenBalance(mint: string, owner: string, amount: bigint, delegate?: { address: string; amount: bigint }, at?: string): Promise<string>;
  /** Token balance of the owner's associated token account; null when it does not exist. */
  tokenBalance(mint: string, owner: string): Promise<bigint | null>;
  solBalance(owner: string): bigint;
  ata(mint: string, owner: string, tokenProgram?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface LocalSolanaOptions extends ChainOptions {}

/** Serve `chain` as a node with `view` on a free loopback port. */
function serveNode(chain: LocalChain, history: ReturnType<typeof createHistory>, view: NodeView): LocalNode {
  // History (getSignaturesForAddress, getTransaction) recorded around LiteSVM's own execution.
  const handlers = { ...createHandlers(chain, view), ...history(view) };
  const counters: RpcCounters = { calls: {}, unexpected: [] };
  let health: Health = 'ok';

  const fetch = async (req: Request): Promise<Response> => {
    if (health === 'http500') return new Response('upstream exploded', { status: 500 });
    if (req.method !== 'POST') return new Response('POST JSON-RPC here', { status: 405 });
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const answer = Array.isArray(body) ? body.map((r) => dispatch(handlers, counters, r)) : dispatch(handlers, counters, body);
    return Response.json(answer);
  };

  let server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch });
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}`,
    view,
    counters,
    resetCounters() {
      counters.calls = {};
      counters.unexpected.length = 0;
    },
    async setHealth(h: Health) {
      if (h === health) return;
      if (health === 'down') server = Bun.serve({ port, hostname: '127.0.0.1', fetch });
      if (h === 'down') await server.stop(true);
      health = h;
    },
    async stop() {
      if (health !== 'down') await server.stop(true);
      health = 'down';
    },
  };
}

export async function startLocalSolana(opts: LocalSolanaOptions = {}): Promise<LocalSolana> {
  const chain = new LocalChain(opts);
  const history = createHistory(chain);
  const main = serveNode(chain, history, { lagBlocks: 0, firstAvailableSlot: 0 });
  const extra: LocalNode[] = [];

  const ata = async (mint: string, owner: string, tokenProgram: string = TOKEN_PROGRAM_ADDRESS) =>
    (await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: address(tokenProgram) }))[0];

  return {
    url: main.url,
    chain,
    view: main.view,
    get counters() {
      return main.counters;
    },
    resetCounters: () => main.resetCounters(),
    assertNoUnexpectedCalls() {
      const unexpected = [main, ...extra].flatMap((n) => n.counters.unexpected);
      if (unexpected.length > 0) {
        throw new Error(`local solana: unexpected RPC methods called: ${[...new Set(unexpected)].join(', ')}`);
      }
    },
    setHealth: (h) => main.setHealth(h),
    async addNode(view = {}) {
      const node = serveNode(chain, history, { lagBlocks: 0, firstAvailableSlot: 0, ...view });
      extra.push(node);
      return node;
    },
    setDropTransactions(on: boolean) {
      chain.dropTransactions = on;
    },
    createMint({ address: mint, decimals, tokenProgram = TOKEN_PROGRAM_ADDRESS, supply = 0n }) {
      const data = getMintEncoder().encode({
        mintAuthority: none(),
        supply,
        decimals,
        isInitialized: true,
        freezeAuthority: none(),
      });
      chain.svm.setAccount({
        address: address(mint),
        data: new Uint8Array(data),
        executable: false,
        lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
        programAddress: address(tokenProgram),
        space: BigInt(data.length),
      });
    },
    airdrop(owner: string, amount: bigint) {
      const r = chain.svm.airdrop(address(owner), lamports(amount));
      if (!r || !('signature' in r)) throw new Error(`local solana: airdrop to ${owner} failed: ${String(r)}`);
    },
    async setTokenBalance(mint: string, owner: string, amount: bigint, delegate?: { address: string; amount: bigint }, at?: string) {
      const mintAccount = chain.svm.getAccount(address(mint));
      if (!mintAccount.exists) throw new Error(`local solana: mint ${mint} does not exist`);
      const tokenProgram = mintAccount.programAddress;
      const account = at ? address(at) : await ata(mint, owner, tokenProgram);
      const data = getTokenEncoder().encode({
        mint: address(mint),
        owner: address(owner),
        amount,
        delegate: delegate ? some(address(delegate.address)) : none(),
        state: AccountState.Initialized,
        isNative: none(),
        delegatedAmount: delegate?.amount ?? 0n,
        closeAuthority: none(),
      });
      chain.svm.setAccount({
        address: account,
        data: new Uint8Array(data),
        executable: false,
        lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
        programAddress: tokenProgram,
        space: BigInt(data.length),
      });
      return account;
    },
    async tokenBalance(mint: string, owner: string) {
      const a = chain.svm.getAccount(await ata(mint, owner));
      return a.exists ? getTokenDecoder().decode(a.data).amount : null;
    },
    solBalance(owner: string) {
      return chain.svm.getBalance(address(owner)) ?? 0n;
    },
    ata,
    async stop() {
      chain.stop();
      await Promise.all([main, ...extra].map((n) => n.stop()));
    },
  };
}
