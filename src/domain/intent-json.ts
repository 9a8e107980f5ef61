// The JSON of a wire intent, rendered once: a create's intent.created payload carries
// `"data":{"intent":...}`, and its 201 body is that same `{"intent":...}` (the route answers with
// the text the outbox rendered instead of serializing the intent a second time).
import type { EventEnvelope, PaymentIntentWire } from './intent';

// Wire objects are never changed once rendered (toWire's objects are shared the same way).
const bodies = new WeakMap<PaymentIntentWire, string>();

/** `{"intent":<wire>}`, exactly JSON.stringify({ intent: wire }). */
export function intentBodyJson(wire: PaymentIntentWire): string {
  let json = bodies.get(wire);
  if (json === undefined) {
    json = JSON.stringify({ intent: wire });
    bodies.set(wire, json);
  }
  return json;
}

/**
 * An event's payload, exactly JSON.stringify(envelope) (the envelope's keys in their order). Its
 * eventId (`evt_` + base62), type (an EventType) and createdAt (an ISO instant) need no escaping.
 */
export function envelopeJson(e: EventEnvelope): string {
  if (!('intent' in e.data)) return JSON.stringify(e);
  return `${envelopeHead(e)}${intentBodyJson(e.data.intent)}}`;
}

/**
 * An intent event's payload up to its `{"intent":...}` body: the payload is this, then
 * intentBodyJson of its intent, then `}` (SQLite's outbox joins the three in its INSERT, so the
 * ~1.4 KB payload is never a JavaScript string of its own: src/store/outbox.ts).
 */
export function envelopeHead(e: EventEnvelope): string {
  return `{"eventId":"${e.eventId}","type":"${e.type}","createdAt":"${e.createdAt}","livemode":${e.livemode},"data":`;
}
