// What the operator's pages read that no API verb answers: an intent's event timeline, from the
// store's repositories, shaped for the template. Intents and deliveries are listed by the API's own
// verbs as the operator (src/intents/list-intents.ts, src/webhooks/list-deliveries.ts).
import type { Repos } from '../store/repos';

export type { EndpointInfo } from '../store/webhook-endpoints';

export const PAGE_SIZE = 50;

export interface TimelineEvent {
  id: string;
  type: string;
  createdAt: number;
  /** The intent's state right after this event (from the stored envelope). */
  state: string | null;
  deliveries: number;
  delivered: number;
}

export async function intentTimeline(repos: Pick<Repos, 'events'>, intentId: string): Promise<TimelineEvent[]> {
  return (await repos.events.timeline(intentId)).map((r) => {
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
