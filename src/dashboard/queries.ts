// What the operator's pages read, across all accounts, newest first: pages of rows from the
// store (src/store/intents-overview.ts, events.ts, webhook-*.ts) shaped for the templates.
import type { Db } from '../store/db';
import { intentEventTimeline } from '../store/events';
import { type IntentFilter, type IntentListRow, listIntentRows } from '../store/intents-overview';
import { type DeliveryFilter, type DeliveryListRow, listAllDeliveryRows } from '../store/webhook-deliveries';

export type { IntentFilter, IntentListRow } from '../store/intents-overview';
export type { DeliveryFilter, DeliveryListRow } from '../store/webhook-deliveries';
export type { EndpointInfo } from '../store/webhook-endpoints';

export const PAGE_SIZE = 50;

/** Newest first; one row more than a page tells whether there is a next one. */
export function listIntents(db: Db, f: IntentFilter): { rows: IntentListRow[]; hasMore: boolean } {
  const rows = listIntentRows(db, f, PAGE_SIZE + 1);
  return { rows: rows.slice(0, PAGE_SIZE), hasMore: rows.length > PAGE_SIZE };
}

export function listAllDeliveries(db: Db, f: DeliveryFilter): { rows: DeliveryListRow[]; hasMore: boolean } {
  const rows = listAllDeliveryRows(db, f, PAGE_SIZE + 1);
  return { rows: rows.slice(0, PAGE_SIZE), hasMore: rows.length > PAGE_SIZE };
}

export interface TimelineEvent {
  id: string;
  type: string;
  createdAt: number;
  /** The intent's state right after this event (from the stored envelope). */
  state: string | null;
  deliveries: number;
  delivered: number;
}

export function intentTimeline(db: Db, intentId: string): TimelineEvent[] {
  return intentEventTimeline(db, intentId).map((r) => {
    let state: string | null = null;
    try {
      const p = JSON.parse(r.payload) as { data?: { intent?: { state?: unknown } } };
      state = typeof p.data?.intent?.state === 'string' ? p.data.intent.state : null;
    } catch {
      /* a payload is always JSON; stay quiet if not */
    }
    return { id: r.id, type: r.type, createdAt: r.createdAt, state, deliveries: r.deliveries, delivered: r.delivered };
  });
}
