// A simulated Solana cluster around one LiteSVM: slots and block heights that advance on a timer,
// blockhashes that expire, commitment levels that trail the tip, and transactions that land on
// the next slot (or are dropped on purpose). LiteSVM executes them with the real SPL programs.
import { getBase58Decoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Transaction } from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { describeTxError, isFailure, landsOnChain, toRpcError, type RpcTxError } from './tx-errors';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface ChainOptions {
  /** Milliseconds per slot when the clock runs (default 40). */
  slotMs?: number;
  /** Blocks between processed and confirmed (default 1) and between processed and finalized (default 4). */
  confirmedLag?: number;
  finalizedLag?: number;
  /** Blocks a blockhash stays valid after its own block (mainnet: 150). */
  blockhashValidBlocks?: number;
  /** Slots the recent status cache covers; older signatures need searchTransactionHistory (default 300). */
  statusCacheSlots?: number;
  /** Start with the clock stopped (advance with tick()). */
  paused?: boolean;
}

export interface LandedTx {
  signature: string;
  slot: number;
  height: number;
  err: RpcTxError | null;
}

/**
 * How one RPC node sees the shared cluster (mutable: tests change it while running). A node can
 * be behind the tip, and its ledger (history searches, getTransaction, getSignaturesForAddress)
 * may start late, e.g. after a restart from a snapshot.
 */
export interface NodeView {
  /** Blocks behind the cluster's tip. */
  lagBlocks: number;
  /** Lowest slot of its ledger (getFirstAvailableBlock, minimumLedgerSlot); 0 = every slot. */
  firstAvailableSlot: number;
}

/** The cluster as a fully synced node with full history sees it. */
export const FULL_VIEW: Readonly<NodeView> = Object.freeze({ lagBlocks: 0, firstAvailableSlot: 0 });

interface BlockhashEntry {
  height: number;
  lastValidBlockHeight: number;
}

export class PreflightError extends Error {
  constructor(readonly err: RpcTxError, readonly logs: string[]) {
    super(`Transaction simulation failed: ${describeTxError(err)}`);
  }
}

/** Slots start well above heights so that code mixing the two up gets caught. */
const SLOT_OFFSET = 1000;

export class LocalChain {
  readonly svm: LiteSVM;
  readonly opts: Required<ChainOptions>;
  height = 1;
  private readonly blockhashes = new Map<string, BlockhashEntry>();
  private readonly hashAtHeight = new Map<number, string>();
  private readonly landed = new Map<string, LandedTx>();
  /** Forgotten by a simulated fork: accepted again but never re-executed (LiteSVM cannot undo it). */
  private readonly forgotten = new Set<string>();
  private queue: Array<{ signature: string; tx: Transaction; blockhash: string }> = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Accept transactions but never land them (a congested leader losing them). */
  dropTransactions = false;
  /** Signatures that were accepted and then discarded by the drop switch. */
  readonly dropped: string[] = [];

  constructor(opts: ChainOptions = {}) {
    this.opts = {
      slotMs: opts.slotMs ?? 40,
      confirmedLag: opts.confirmedLag ?? 1,
      finalizedLag: opts.finalizedLag ?? 4,
      blockhashValidBlocks: opts.blockhashValidBlocks ?? 150,
      statusCacheSlots: opts.statusCacheSlots ?? 300,
      paused: opts.paused ?? false,
    };
    // Blockhash validity is modelled here (LiteSVM only knows one blockhash), signatures by LiteSVM.
    this.svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
    this.newBlockhash();
    if (!this.opts.paused) this.resume();
  }

  get slot(): number {
    return this.height + SLOT_OFFSET;
  }

  /** Height at commitment `c` for a node `lagBlocks` behind the tip. */
  heightAt(c: Commitment, lagBlocks = 0): number {
    const lag = c === 'finalized' ? this.opts.finalizedLag : c === 'confirmed' ? this.opts.confirmedLag : 0;
    return Math.max(1, this.height - lagBlocks - lag);
  }

  slotAt(c: Commitment, lagBlocks = 0): number {
    return this.heightAt(c, lagBlocks) + SLOT_OFFSET;
  }

  latestBlockhash(c: Commitment, lagBlocks = 0): { blockhash: string; lastValidBlockHeight: number } {
    const h = this.heightAt(c, lagBlocks);
    const blockhash = this.hashAtHeight.get(h)!;
    return { blockhash, lastValidBlockHeight: this.blockhashes.get(blockhash)!.lastValidBlockHeight };
  }

  /** Valid in the bank at `atHeight` (default the tip): produced at or before it and not expired there. */
  isBlockhashValid(blockhash: string, atHeight = this.height): boolean {
    const e = this.blockhashes.get(blockhash);
    return e !== undefined && e.height <= atHeight && atHeight <= e.lastValidBlockHeight;
  }

  /** Produce one block: advance height and slot, land queued transactions, mint a blockhash. */
  tick(): void {
    this.height += 1;
    const queued = this.queue;
    this.queue = [];
    for (const q of queued) {
      if (!this.isBlockhashValid(q.blockhash) || this.landed.has(q.signature)) continue;
      const r = this.svm.sendTransaction(q.tx);
      const err = isFailure(r) ? toRpcError(r) : null;
      if (err !== null && !landsOnChain(err)) continue; // e.g. bad signature, no fee funds: never in a block
      this.landed.set(q.signature, { signature: q.signature, slot: this.slot, height: this.height, err });
    }
    this.newBlockhash();
  }

  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  resume(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.opts.slotMs);
  }

  /** Wait (real time) until the processed height reaches `height`; the clock must be running. */
  async waitForHeight(height: number, timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.height < height) {
      if (Date.now() > until) throw new Error(`local solana: height ${height} not reached (at ${this.height})`);
      await Bun.sleep(this.opts.slotMs);
    }
  }

  /**
   * sendTransaction: preflight (unless skipped) against the current state, then queue for the next
   * block. Returns the signature; throws PreflightError like the RPC's -32002.
   */
  send(wire: Uint8Array, skipPreflight: boolean): string {
    const tx = getTransactionDecoder().decode(wire);
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const first = tx.signatures[message.staticAccounts[0]!];
    if (!first) throw new PreflightError('MissingSignatureForFee', []);
    const signature = getBase58Decoder().decode(first);
    const blockhash = message.lifetimeToken;
    if (!skipPreflight) {
      // A real bank checks the blockhash's age before its status cache: landed bytes whose
      // blockhash expired are refused as BlockhashNotFound, not AlreadyProcessed.
      if (!this.isBlockhashValid(blockhash)) throw new PreflightError('BlockhashNotFound', []);
      if (this.landed.has(signature)) throw new PreflightError('AlreadyProcessed', []);
      const sim = this.svm.simulateTransaction(tx);
      if (isFailure(sim)) throw new PreflightError(toRpcError(sim), sim.meta().logs());
    }
    if (this.landed.has(signature) || this.queue.some((q) => q.signature === signature)) return signature;
    if (this.dropTransactions || this.forgotten.has(signature)) {
      this.dropped.push(signature);
      return signature;
    }
    this.queue.push({ signature, tx, blockhash });
    return signature;
  }

  /**
   * getSignatureStatuses for one signature as node `view` answers: nothing it has not reached yet;
   * beyond its status cache only with a history search, and only from its own ledger.
   */
  status(signature: string, searchTransactionHistory: boolean, view: Readonly<NodeView> = FULL_VIEW) {
    const t = this.landed.get(signature);
    const tip = this.height - view.lagBlocks;
    if (!t || t.height > tip) return null;
    const inCache = tip + SLOT_OFFSET - t.slot <= this.opts.statusCacheSlots;
    if (!inCache && (!searchTransactionHistory || t.slot < view.firstAvailableSlot)) return null;
    const lag = view.lagBlocks;
    const confirmationStatus: Commitment =
      this.heightAt('finalized', lag) >= t.height ? 'finalized' : this.heightAt('confirmed', lag) >= t.height ? 'confirmed' : 'processed';
    return {
      slot: t.slot,
      confirmations: confirmationStatus === 'finalized' ? null : tip - t.height,
      err: t.err,
      status: t.err === null ? { Ok: null } : { Err: t.err },
      confirmationStatus,
    };
  }

  landedTx(signature: string): LandedTx | undefined {
    return this.landed.get(signature);
  }

  /**
   * Simulate a fork that discards a landed, not yet finalized transaction: its status disappears.
   * (LiteSVM cannot roll state back; tests use this for the watcher's view only.)
   */
  forgetTransaction(signature: string): void {
    const t = this.landed.get(signature);
    if (!t) throw new Error(`local solana: ${signature} has not landed`);
    if (this.heightAt('finalized') >= t.height) throw new Error(`local solana: ${signature} is already finalized`);
    this.landed.delete(signature);
    this.forgotten.add(signature);
  }

  /** Fee as the runtime charges it: 5000 lamports a signature plus the compute-unit price bid. */
  feeForMessage(messageBytes: Uint8Array): number | null {
    const message = getCompiledTransactionMessageDecoder().decode(messageBytes as never) as {
      lifetimeToken: string;
      staticAccounts: string[];
      header: { numSignerAccounts: number };
      instructions: Array<{ programAddressIndex: number; data?: ArrayLike<number> }>;
    };
    if (!this.isBlockhashValid(message.lifetimeToken)) return null;
    let limit: bigint | null = null;
    let price = 0n;
    let nonBudget = 0;
    for (const ix of message.instructions) {
      const program = message.staticAccounts[ix.programAddressIndex];
      const d = ix.data ?? new Uint8Array();
      if (program !== 'ComputeBudget111111111111111111111111111111') {
        nonBudget += 1;
        continue;
      }
      const view = new DataView(new Uint8Array(d).buffer);
      if (d[0] === 2) limit = BigInt(view.getUint32(1, true));
      if (d[0] === 3) price = view.getBigUint64(1, true);
    }
    const units = limit ?? BigInt(Math.min(1_400_000, 200_000 * nonBudget));
    const priority = (price * units + 999_999n) / 1_000_000n;
    return Number(5000n * BigInt(message.header.numSignerAccounts) + priority);
  }

  stop(): void {
    this.pause();
  }

  private newBlockhash(): void {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const hash = getBase58Decoder().decode(bytes);
    this.blockhashes.set(hash, { height: this.height, lastValidBlockHeight: this.height + this.opts.blockhashValidBlocks });
    this.hashAtHeight.set(this.height, hash);
  }
}
