// The payload of an intent's event and the 201 body of a create are one rendering
// (src/domain/intent-json.ts): each is exactly what JSON.stringify makes of the same object.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { iso, toWire, type EventEnvelope, type EventType, type IntentRecord } from '../../src/domain/intent';
import { envelopeJson, intentBodyJson } from '../../src/domain/intent-json';
import { intentRecord } from '../support/intent-record';

const record = (over: Partial<IntentRecord> = {}): IntentRecord => intentRecord({ payToken: 'pt_x', ...over });

/** As src/actors/project-row.ts envelope() makes it. */
const envelope = (type: EventType, r: IntentRecord, at: number): EventEnvelope => ({
  eventId: newId('evt'),
  type,
  createdAt: iso(at),
  livemode: r.mode === 'live',
  data: { intent: toWire(r) },
});

describe('envelopeJson and intentBodyJson', () => {
  it('are JSON.stringify of the envelope and of { intent }, for intents of every shape', () => {
    const rows = [
      record(),
      record({
        mode: 'live',
        reference: 'order "7" \\ é \u2028',
        metadata: { a: 'b', 'k"ey': '\n' },
        fulfiller: '0x2222222222222222222222222222222222222222',
      }),
      record({
        state: 'expired',
        refunds: ['pi_x', 'pi_y'],
        refundedBy: 'pi_y',
        txSignature: '0xabc',
        latePayment: { txSignature: '0xdef', amountBaseUnits: 5n, from: '0x3', detectedAt: 1 },
      }),
    ];
    for (const row of rows) {
      for (const type of ['intent.created', 'intent.expired'] as const) {
        const e = envelope(type, row, 1_700_000_000_123);
        expect(envelopeJson(e)).toBe(JSON.stringify(e));
        expect(JSON.parse(envelopeJson(e))).toEqual(JSON.parse(JSON.stringify(e)));
      }
      const wire = toWire(row);
      expect(intentBodyJson(wire)).toBe(JSON.stringify({ intent: wire }));
      // The body inside the payload is the same text.
      expect(envelopeJson(envelope('intent.created', row, 5))).toContain(`"data":${intentBodyJson(wire)}}`);
    }
  });

  it('renders a payment event (no intent) as JSON.stringify too', () => {
    const e = {
      eventId: newId('evt'),
      type: 'payment.unmatched',
      createdAt: iso(7),
      livemode: false,
      data: { payment: { id: 'pay_1', amount: '1' } },
    } as unknown as EventEnvelope;
    expect(envelopeJson(e)).toBe(JSON.stringify(e));
  });

  it('a record renders to one wire object, whichever records were rendered in between', () => {
    const a = record();
    const b = record();
    const wa = toWire(a);
    toWire(b);
    expect(toWire(a)).toBe(wa);
    // A moved intent is a new record: a new rendering.
    expect(toWire({ ...a, state: 'cancelled' }).state).toBe('cancelled');
  });
});
