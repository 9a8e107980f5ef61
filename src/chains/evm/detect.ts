// The EVM payment detector (contract section 11): ONE eth_getLogs per network per poll over the
// new block range, Transfer logs of the watched tokens with topic2 OR'ed over the watched
// requestors, so the cost grows with distinct receivers, never with open intents. Found transfers
// go to the matcher at `confirmed` depth, and again once their block is at or below `finalized`.
import { keccak256, pad, toBytes, type Hex } from 'viem';
import type { RpcPool } from '../../rpc/types';
import type { DetectionSource, Detector, FoundTransfer, Network } from '../types';
import { batch, hexToBig, hexToNum, toHex } from './rpc';

const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'));
/** Blocks per eth_getLogs: providers cap ranges (2k to 10k); a node that fell behind catches up over polls. */
export const MAX_LOG_RANGE = 1000;
const CURSOR_KEY = 'logs';
/** How far back a newly watched receiver is searched: it may have been paid during the poll that first missed it. */
export const LOOK_BACK_BLOCKS = 100;

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  removed?: boolean;
}

/** A found transfer not yet reported at the depth it will reach. */
interface Held {
  ft: FoundTransfer;
  /** null: known from the ledger only (after a restart); its receipt tells where it landed. */
  block: number | null;
  reported: 'none' | 'confirmed';
}

const topicAddress = (t: string) => `0x${t.slice(-40)}`;

export function createEvmDetector(network: Network, rpc: RpcPool, source: DetectionSource): Detector {
  const held = new Map<string, Held>();
  /** Receivers watched by the last poll (requestor|token). */
  const known = new Set<string>();
  let idle = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastWarnAt = 0;

  const warn = (msg: string, e: unknown) => {
    // A dead upstream is worth a line a minute, not one per poll.
    if (Date.now() - lastWarnAt < 60_000) return;
    lastWarnAt = Date.now();
    source.log(msg, { chain: network.chain, error: (e as Error)?.message ?? String(e) });
  };

  async function tick(): Promise<void> {
    const receivers = await source.receivers();
    const unfinalized = await source.unfinalized();
    if (receivers.length === 0 && unfinalized.length === 0 && held.size === 0) {
      // Nothing to watch: no RPC at all (a network nobody uses costs nothing), and a receiver
      // that appears later gets its own look back when it does.
      known.clear();
      idle = true;
      return;
    }
    const [headO, finO] = await batch(rpc, [
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_getBlockByNumber', params: ['finalized', false] },
    ]);
    if (!headO!.ok) throw new Error(`eth_blockNumber: ${headO!.message}`);
    const head = hexToNum(headO!.result);
    const finalized = finO!.ok && finO!.result ? hexToNum((finO!.result as { number: string }).number) : null;

    const cursor = await source.getCursor(CURSOR_KEY);
    // After idling (or on the very first run) nothing was watched before: start at the head.
    const from = cursor === null || idle ? head : Number(cursor) + 1;
    const to = Math.min(head, from + MAX_LOG_RANGE - 1);
    const keyOf = (r: { requestor: string; tokenAddress: string }) => `${r.requestor.toLowerCase()}|${r.tokenAddress.toLowerCase()}`;
    // Receivers that appeared since the last poll may have been paid in blocks already scanned
    // without them (the intent was created while that poll ran): look back for those alone.
    const fresh = receivers.filter((r) => !known.has(keyOf(r)));
    const ranges: Array<{ from: number; to: number; receivers: typeof receivers }> = [];
    if (from <= to && receivers.length > 0) ranges.push({ from, to, receivers });
    if (fresh.length > 0 && from > 0) ranges.push({ from: Math.max(0, from - LOOK_BACK_BLOCKS), to: from - 1, receivers: fresh });
    if (ranges.length > 0) await scan(ranges);
    known.clear();
    for (const r of receivers) known.add(keyOf(r));
    idle = false;
    if (from <= to || cursor === null) await source.setCursor(CURSOR_KEY, String(Math.max(to, from - 1)));

    for (const u of unfinalized) {
      if (held.has(u.txSignature)) continue;
      held.set(u.txSignature, {
        ft: { ...u, chain: network.chain, references: [], landedAt: 0, commitment: 'confirmed' },
        block: null,
        reported: 'confirmed',
      });
    }
    await settle(head, finalized);
  }

  /** eth_getLogs per range (one in steady state) in one batch; then each new transaction's sender, nonce and block time. */
  async function scan(ranges: Array<{ from: number; to: number; receivers: Awaited<ReturnType<DetectionSource['receivers']>> }>): Promise<void> {
    const calls = ranges.map(({ from, to, receivers }) => ({
      method: 'eth_getLogs',
      params: [
        {
          fromBlock: toHex(from),
          toBlock: toHex(to),
          address: [...new Set(receivers.map((r) => r.tokenAddress.toLowerCase()))],
          topics: [TRANSFER_TOPIC, null, [...new Set(receivers.map((r) => pad(r.requestor.toLowerCase() as Hex, { size: 32 })))]],
        },
      ],
    }));
    const logs: RpcLog[] = [];
    for (const o of await batch(rpc, calls)) {
      if (!o.ok) throw new Error(`eth_getLogs: ${o.message}`);
      logs.push(...(o.result as RpcLog[]));
    }
    // Net credit per (transaction, token, receiver): a transaction may carry several Transfer logs.
    const credits = new Map<string, { log: RpcLog; amount: bigint }>();
    for (const log of logs) {
      if (log.removed || log.topics.length < 3) continue;
      const key = `${log.transactionHash}|${log.address.toLowerCase()}|${log.topics[2]!.toLowerCase()}`;
      const prev = credits.get(key);
      credits.set(key, { log: prev?.log ?? log, amount: (prev?.amount ?? 0n) + hexToBig(log.data) });
    }
    const found = [...credits.values()].filter((c) => !held.has(c.log.transactionHash));
    if (found.length === 0) return;
    const hashes = [...new Set(found.map((c) => c.log.transactionHash))];
    const blocks = [...new Set(found.map((c) => c.log.blockNumber))];
    const out = await batch(rpc, [
      ...hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })),
      ...blocks.map((b) => ({ method: 'eth_getBlockByNumber', params: [b, false] })),
    ]);
    const txs = new Map(hashes.map((h, i) => [h, out[i]!.ok ? (out[i]!.result as { from: string; nonce: string } | null) : null]));
    const times = new Map(
      blocks.map((b, i) => {
        const o = out[hashes.length + i]!;
        return [b, o.ok && o.result ? hexToNum((o.result as { timestamp: string }).timestamp) * 1000 : null];
      }),
    );
    for (const { log, amount } of found) {
      const tx = txs.get(log.transactionHash);
      const landedAt = times.get(log.blockNumber);
      // Not served yet by this node (it just announced the log): the next scan of this range finds it.
      if (!tx || landedAt === null || landedAt === undefined) throw new Error(`transaction ${log.transactionHash} not served yet`);
      const block = hexToNum(log.blockNumber);
      held.set(log.transactionHash, {
        ft: {
          chain: network.chain,
          txSignature: log.transactionHash,
          tokenAddress: log.address,
          from: topicAddress(log.topics[1]!),
          to: topicAddress(log.topics[2]!),
          amountBaseUnits: amount,
          references: [],
          landedAt,
          commitment: 'confirmed',
          // seenBlock: where the transfer was seen, so the watcher can read a reorg it never saw itself.
          watchData: { from: tx.from, nonce: hexToNum(tx.nonce), sinceBlock: block, seenBlock: block },
        },
        block,
        reported: 'none',
      });
    }
  }

  /** Report what reached `confirmed` depth, and what is final (re-read from its receipt first). */
  async function settle(head: number, finalized: number | null): Promise<void> {
    const needReceipt = [...held.values()].filter(
      (h) => h.block === null || (finalized !== null && h.block <= finalized),
    );
    const receipts = new Map<string, { status: string; blockNumber: string } | null>();
    if (needReceipt.length > 0) {
      const out = await batch(rpc, needReceipt.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h.ft.txSignature] })));
      // A failed read is no answer (asked again next poll); only a null receipt means it is gone.
      needReceipt.forEach((h, i) => {
        const o = out[i]!;
        if (o.ok) receipts.set(h.ft.txSignature, o.result as never);
      });
    }
    for (const [hash, h] of held) {
      if (stopped) return;
      const r = receipts.get(hash);
      if (r === undefined && (h.block === null || (finalized !== null && h.block <= finalized))) continue; // read failed: next poll
      // A receipt was read: the transfer is final only if it is still there, successful, at or below finalized.
      if (r !== undefined) {
        if (r === null || hexToBig(r.status) !== 1n) {
          if (h.block !== null) held.delete(hash); // reorged out: a rescan would not find it; the watcher follows the intent
          continue;
        }
        h.block = hexToNum(r.blockNumber);
      }
      const block = h.block;
      if (block === null) continue;
      const commitment = finalized !== null && block <= finalized ? 'finalized' : head - block + 1 >= network.confirmations ? 'confirmed' : null;
      if (commitment === null || (commitment === 'confirmed' && h.reported === 'confirmed')) continue;
      try {
        await source.report({ ...h.ft, commitment });
      } catch (e) {
        warn('recording a found transfer failed; retrying next poll', e);
        continue;
      }
      if (commitment === 'finalized') held.delete(hash);
      else h.reported = 'confirmed';
    }
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
