// The Solana payment detector (contract section 11): every poll, getSignaturesForAddress on each
// distinct watched requestor's associated token account (and on a rotating slice of the intents'
// Solana Pay references), then getTransaction for new signatures to read the net credit from the
// pre/post token balances. Cost grows with distinct receiving accounts, not with open intents.
import type { RpcPool } from '../../rpc/types';
import type { DetectionSource, Detector, FoundTransfer, Network } from '../types';
import { associatedTokenAddress } from './ata';

/** References searched per poll, round robin: the token-account scan already sees every credit; references attribute it. */
export const REFERENCES_PER_POLL = 16;
const SIGNATURES_PER_CALL = 100;
/**
 * Pages of signatures read per address in one poll at most. A page holds the newest ones after the
 * cursor; more than a page between two polls (a burst, a restart after downtime) is read page by
 * page back to the cursor, or else the older ones would never be read (the cursor then moves past
 * them). Past this many the cursor stays where it was, and the next poll goes on from the oldest
 * signature read (a backfill, stored beside the cursor); once it reaches the cursor, the cursor
 * moves to the newest one of the first pass. Signatures newer than that wait for the backfill.
 */
const MAX_PAGES = 100;
/** Block times have one-second resolution. */
const SLACK_MS = 1000;

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime: number | null;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

interface RpcTransaction {
  slot: number;
  blockTime: number | null;
  meta: { err: unknown; preTokenBalances?: TokenBalance[]; postTokenBalances?: TokenBalance[]; loadedAddresses?: { writable: string[]; readonly: string[] } } | null;
  transaction: { message: { accountKeys: Array<string | { pubkey: string }> } };
}

interface Scanned {
  address: string;
  since: number;
}

/** A read back to the cursor that one poll could not finish: go on before `before`; `head` is where the cursor goes then. */
interface Backfill {
  before: string;
  head: string;
}

const backfillOf = (stored: string | null): Backfill | null => {
  const [before, head] = (stored ?? '').split(' ');
  return before && head ? { before, head } : null;
};

export interface SolanaDetectorOptions {
  /** Pages of signatures read per address in one poll at most (MAX_PAGES; tests make it small). */
  maxPages?: number;
}

export function createSolanaDetector(network: Network, rpc: RpcPool, source: DetectionSource, opts: SolanaDetectorOptions = {}): Detector {
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const atas = new Map<string, string>(); // requestor|mint -> associated token account
  const held = new Map<string, FoundTransfer>(); // found, not yet final
  let refCursor = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastWarnAt = 0;

  const warn = (msg: string, e: unknown) => {
    if (Date.now() - lastWarnAt < 60_000) return;
    lastWarnAt = Date.now();
    source.log(msg, { chain: network.chain, error: (e as Error)?.message ?? String(e) });
  };

  /** One JSON-RPC batch; per-call errors come back as null results (the next poll retries them). */
  async function batch<T>(node: RpcPool, calls: Array<[string, unknown[]]>): Promise<Array<T | null>> {
    if (calls.length === 0) return [];
    const answer = (await node.request(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })))) as unknown;
    if (!Array.isArray(answer)) throw new Error(`${network.chain}: the node refused a batch`);
    const byId = new Map<unknown, { result?: T; error?: unknown }>(answer.map((r: { id: unknown }) => [r.id, r as never]));
    return calls.map((_c, i) => {
      const r = byId.get(i);
      return r && r.error === undefined && r.result !== undefined ? r.result : null;
    });
  }

  async function ataOf(requestor: string, mint: string): Promise<string> {
    const key = `${requestor}|${mint}`;
    let a = atas.get(key);
    if (!a) atas.set(key, (a = await associatedTokenAddress(requestor, mint)));
    return a;
  }

  async function tick(): Promise<void> {
    const receivers = await source.receivers();
    const refs = await source.references();
    for (const u of await source.unfinalized()) {
      if (!held.has(u.txSignature)) held.set(u.txSignature, { ...u, chain: network.chain, references: [], landedAt: 0, commitment: 'confirmed' });
    }
    if (receivers.length === 0 && held.size === 0) return; // nothing to watch: no RPC at all
    // Every read of one poll from one node (contract 14): a failover restarts the poll next time.
    const node = rpc.pin();

    // Which token account belongs to which watched requestor, and the addresses to scan.
    const owners = new Map<string, { requestor: string; mint: string }>();
    const scans: Scanned[] = [];
    for (const r of receivers) {
      const ata = await ataOf(r.requestor, r.tokenAddress);
      owners.set(ata, { requestor: r.requestor, mint: r.tokenAddress });
      scans.push({ address: ata, since: r.since });
    }
    const refSet = new Set(refs.map((r) => r.reference));
    for (let i = 0; i < Math.min(REFERENCES_PER_POLL, refs.length); i++) {
      const r = refs[(refCursor + i) % refs.length]!;
      scans.push({ address: r.reference, since: r.createdAt });
    }
    refCursor = refs.length === 0 ? 0 : (refCursor + REFERENCES_PER_POLL) % refs.length;

    const cursors: Array<string | null> = [];
    const backfills: Array<Backfill | null> = [];
    for (const sc of scans) {
      cursors.push(await source.getCursor(`sig:${sc.address}`));
      backfills.push(backfillOf(await source.getCursor(`sigback:${sc.address}`)));
    }
    const { lists, unfinished } = await signatures(node, scans, cursors, backfills);
    const wanted = new Map<string, SignatureInfo>();
    scans.forEach((sc, i) => {
      for (const info of lists[i] ?? []) {
        const landedAt = info.blockTime === null ? Date.now() : info.blockTime * 1000;
        if (info.err !== null || landedAt + SLACK_MS < sc.since || held.has(info.signature)) continue;
        wanted.set(info.signature, info);
      }
    });
    const sigs = [...wanted.keys()];
    const txs = await batch<RpcTransaction>(
      node,
      sigs.map((sig) => ['getTransaction', [sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }]]),
    );
    const failed = new Set<string>();
    for (const [i, sig] of sigs.entries()) {
      const tx = txs[i];
      if (!tx) {
        failed.add(sig); // not served yet: the cursor stays, the next poll asks again
        continue;
      }
      for (const ft of credits(sig, tx, wanted.get(sig)!, owners, refSet)) {
        try {
          await source.report(ft);
          if (ft.commitment === 'confirmed') held.set(sig, ft);
        } catch (e) {
          failed.add(sig);
          warn('recording a found transfer failed; retrying next poll', e);
        }
      }
    }
    // Advance each address's cursor to its newest signature once everything it returned is written.
    for (const [i, sc] of scans.entries()) {
      const list = lists[i];
      if (!list || list.some((s) => failed.has(s.signature))) continue;
      const back = backfills[i];
      if (unfinished.has(i)) {
        // Not back to the cursor yet: the next poll reads on from the oldest one read here.
        await source.setCursor(`sigback:${sc.address}`, `${list.at(-1)!.signature} ${back?.head ?? list[0]!.signature}`);
        continue;
      }
      const head = back?.head ?? list[0]?.signature;
      // The backfill is cleared first: a cursor at its head with the backfill still set would read
      // from `before` (older than the cursor) with nothing to stop it.
      if (back) await source.setCursor(`sigback:${sc.address}`, '');
      if (head !== undefined) await source.setCursor(`sig:${sc.address}`, head);
    }
    await settle(node);
  }

  /**
   * Every signature of each address newer than its cursor, newest first (null: not read this poll),
   * page by page with `before` (from its backfill's when one is under way); an address needs no
   * page older than its watched period (`since`).
   * `unfinished`: addresses left with more to read after MAX_PAGES (their cursors must not move).
   */
  async function signatures(node: RpcPool, scans: Scanned[], cursors: Array<string | null>, backfills: Array<Backfill | null>) {
    const lists: Array<SignatureInfo[] | null> = scans.map(() => []);
    const unfinished = new Set<number>();
    const before = new Map<number, string>();
    backfills.forEach((b, i) => b && before.set(i, b.before));
    let open = scans.map((_sc, i) => i);
    for (let page = 1; open.length > 0; page++) {
      const got = await batch<SignatureInfo[]>(
        node,
        open.map((i) => {
          const until = cursors[i];
          const from = before.get(i);
          const cfg = { commitment: 'confirmed', limit: SIGNATURES_PER_CALL, ...(until ? { until } : {}), ...(from ? { before: from } : {}) };
          return ['getSignaturesForAddress', [scans[i]!.address, cfg]];
        }),
      );
      const next: number[] = [];
      open.forEach((i, k) => {
        const list = got[k] ?? null;
        if (list === null) {
          lists[i] = null; // not answered: the address is read again, whole, next poll
          return;
        }
        lists[i]!.push(...list);
        const oldest = list.at(-1);
        if (list.length < SIGNATURES_PER_CALL || oldest === undefined) return;
        if (oldest.blockTime !== null && oldest.blockTime * 1000 + SLACK_MS < scans[i]!.since) return;
        if (page >= maxPages) {
          unfinished.add(i);
          warn('more signatures than one poll reads for an address; its cursor stays', new Error(scans[i]!.address));
          return;
        }
        before.set(i, oldest.signature);
        next.push(i);
      });
      open = next;
    }
    return { lists, unfinished };
  }

  /** Found at `confirmed`: report again once `finalized` (a failed or vanished one is dropped from view; the watcher follows its intent). */
  async function settle(node: RpcPool): Promise<void> {
    const sigs = [...held.keys()];
    if (sigs.length === 0) return;
    const [statuses] = await batch<{ value: Array<{ err: unknown; confirmationStatus: string | null } | null> }>(node, [
      ['getSignatureStatuses', [sigs.slice(0, 256), { searchTransactionHistory: true }]],
    ]);
    for (const [i, sig] of sigs.slice(0, 256).entries()) {
      const st = statuses?.value[i];
      if (!st || st.confirmationStatus !== 'finalized') continue;
      const ft = held.get(sig)!;
      if (st.err !== null) {
        held.delete(sig);
        continue;
      }
      try {
        await source.report({ ...ft, commitment: 'finalized' });
        held.delete(sig);
      } catch (e) {
        warn('recording a finalized transfer failed; retrying next poll', e);
      }
    }
  }

  /** Net credits to watched token accounts in one transaction, with who paid and the references present. */
  function credits(sig: string, tx: RpcTransaction, info: SignatureInfo, owners: Map<string, { requestor: string; mint: string }>, refSet: Set<string>): FoundTransfer[] {
    if (!tx.meta || tx.meta.err !== null) return [];
    const keys = [
      ...tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey)),
      ...(tx.meta.loadedAddresses?.writable ?? []),
      ...(tx.meta.loadedAddresses?.readonly ?? []),
    ];
    const amountAt = (list: TokenBalance[] | undefined, index: number) =>
      BigInt(list?.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? '0');
    const out: FoundTransfer[] = [];
    keys.forEach((key, index) => {
      const owner = owners.get(key);
      if (!owner) return;
      const post = tx.meta!.postTokenBalances?.find((b) => b.accountIndex === index);
      if (!post || post.mint !== owner.mint) return;
      const net = amountAt(tx.meta!.postTokenBalances, index) - amountAt(tx.meta!.preTokenBalances, index);
      if (net <= 0n) return;
      // The payer: the owner whose balance of this mint fell the most; else the fee payer.
      let from = keys[0]!;
      let debit = 0n;
      for (const pre of tx.meta!.preTokenBalances ?? []) {
        if (pre.mint !== owner.mint || !pre.owner) continue;
        const d = BigInt(pre.uiTokenAmount.amount) - amountAt(tx.meta!.postTokenBalances, pre.accountIndex);
        if (d > debit) (debit = d), (from = pre.owner);
      }
      out.push({
        chain: network.chain,
        txSignature: sig,
        tokenAddress: owner.mint,
        from,
        to: owner.requestor,
        amountBaseUnits: net,
        references: keys.filter((k) => refSet.has(k)),
        landedAt: (tx.blockTime ?? info.blockTime ?? Math.floor(Date.now() / 1000)) * 1000,
        commitment: info.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
        watchData: { slot: tx.slot },
      });
    });
    return out;
  }

  function schedule(): void {
    if (stopped || timer || running) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch((e) => warn('detection poll failed; retrying next interval', e))
        .finally(() => {
          running = null;
          schedule();
        });
    }, network.pollIntervalMs);
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
