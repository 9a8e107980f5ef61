// The README's '## Lifecycle' table against the machine, both ways, by driving real actors:
// every row is a real transition with exactly those emits, and every move the machine accepts
// from every state (for each chain family, with and without pendingAtExpiry / detectedAt) is a row.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTENT_TAGS, type IntentEventType, type IntentTag } from '../../machines/intent.machine';
import { statesTagged } from '../../machines/judge';
import { EVENT_TYPES, reach, sampleEvent, STATES, type Family, type State } from '../support/machine';

interface Row {
  line: string;
  from: State;
  event: IntentEventType;
  /** Condition in parentheses after the event, if any. */
  cond: 'pendingAtExpiry' | 'solana' | null;
  to: State;
  emits: string[];
}

function parseTable(md: string): Row[] {
  const section = md.split(/^## Lifecycle\s*$/m)[1];
  if (!section) throw new Error('README has no "## Lifecycle" section');
  const body = section.split(/^##+ /m)[0]!;
  const lines = body.split('\n').filter((l) => l.trim().startsWith('|'));
  const header = lines[0]!.split('|').map((c) => c.trim()).filter(Boolean);
  expect(header).toEqual(['from', 'event', 'to', 'emits']);
  return lines.slice(2).map((line) => {
    const [from, eventCell, to, emitsCell] = line.split('|').slice(1, -1).map((c) => c.trim());
    const m = /^([A-Z_]+)(?:\s*\(([^)]*)\))?$/.exec(eventCell!);
    if (!m) throw new Error(`cannot parse event cell: ${line}`);
    const condText = m[2]?.trim() ?? null;
    const cond = condText === null ? null : /pendingAtExpiry/.test(condText) ? 'pendingAtExpiry' : /solana/i.test(condText) ? 'solana' : null;
    if (condText !== null && cond === null) throw new Error(`unknown condition "${condText}" in: ${line}`);
    if (!(STATES as readonly string[]).includes(from!) || !(STATES as readonly string[]).includes(to!)) throw new Error(`unknown state in: ${line}`);
    if (!(EVENT_TYPES as string[]).includes(m[1]!)) throw new Error(`unknown event in: ${line}`);
    return { line, from: from as State, event: m[1] as IntentEventType, cond, to: to as State, emits: emitsCell!.match(/intent\.[a-z_]+/g) ?? [] };
  });
}

const rows = parseTable(readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8'));

interface Variant {
  family: Family;
  pendingAtExpiry: boolean;
  detected: boolean;
}

function drive(from: State, event: IntentEventType, v: Variant): { accepted: boolean; to?: string; emits?: string[] } {
  const h = reach(from, v);
  const e = sampleEvent(event);
  if (!h.actor.getSnapshot().can(e)) return { accepted: false };
  const emits = h.send(e);
  expect(h.errors).toEqual([]);
  return { accepted: true, to: String(h.actor.getSnapshot().value), emits };
}

describe('README lifecycle table', () => {
  it('parses into rows', () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  it('has no duplicate rows', () => {
    const keys = rows.map((r) => `${r.from}|${r.event}|${r.cond}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  for (const r of rows) {
    it(`row is a real transition: ${r.line}`, () => {
      const v: Variant = { family: r.cond === 'solana' ? 'solana' : 'evm', pendingAtExpiry: r.cond === 'pendingAtExpiry', detected: false };
      expect(drive(r.from, r.event, v)).toEqual({ accepted: true, to: r.to, emits: r.emits });
      if (r.cond === null) {
        // An unconditional row holds for both families.
        expect(drive(r.from, r.event, { ...v, family: 'solana' })).toEqual({ accepted: true, to: r.to, emits: r.emits });
      }
    });
  }

  for (const from of STATES) {
    it(`every move the machine accepts from ${from} is in the table`, () => {
      const variants: Variant[] = [];
      for (const family of ['evm', 'solana'] as Family[]) {
        for (const pendingAtExpiry of from === 'pending' ? [false, true] : [false]) {
          for (const detected of ['failed', 'expired', 'cancelled'].includes(from) ? [false] : [false, true]) {
            variants.push({ family, pendingAtExpiry, detected });
          }
        }
      }
      for (const v of variants) {
        for (const event of EVENT_TYPES) {
          const got = drive(from, event, v);
          const candidates = rows.filter(
            (r) => r.from === from && r.event === event &&
              (r.cond === null || (r.cond === 'solana' && v.family === 'solana') || (r.cond === 'pendingAtExpiry' && v.pendingAtExpiry)),
          );
          // The most specific row applies (a conditional row over the unconditional one).
          const row = candidates.find((r) => r.cond !== null) ?? candidates[0];
          const where = `${from} ${event} ${JSON.stringify(v)}`;
          if (!got.accepted) {
            // Refused: the only rows that may exist are those that DETECTED-once explains.
            if (row) expect(event === 'DETECTED' && v.detected, `table has "${row.line}" but the machine refuses ${where}`).toBe(true);
            continue;
          }
          expect(row, `machine accepts ${where} -> ${got.to} [${got.emits}] but the table has no row`).toBeDefined();
          expect({ to: got.to, emits: got.emits }, where).toEqual({ to: row!.to, emits: row!.emits });
        }
      }
    });
  }

  it('states that accept nothing are the ones the README names', () => {
    const md = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const withoutRows = STATES.filter((s) => !rows.some((r) => r.from === s));
    expect(withoutRows.sort()).toEqual(['cancelled', 'expired', 'failed']);
    expect(md).toMatch(/`failed`, `expired` and `cancelled` accept nothing/);
  });
});

describe('README state tags', () => {
  const md = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = md.split(/^### State tags\s*$/m)[1]?.split(/^##/m)[0] ?? '';
  const table = new Map(
    section
      .split('\n')
      .filter((l) => l.trim().startsWith('|'))
      .slice(2)
      .map((l) => {
        const [tag, states] = l.split('|').slice(1, -1).map((c) => c.trim());
        return [tag!, states!.split(',').map((s) => s.trim()).sort()] as const;
      }),
  );
  const from = (pred: (r: Row) => boolean) => [...new Set(rows.filter(pred).map((r) => r.from))].sort();
  const to = (pred: (r: Row) => boolean) => [...new Set(rows.filter(pred).map((r) => r.to))].sort();
  const terminal = STATES.filter((s) => rows.every((r) => r.from !== s || r.event === 'DETECTED')).sort();
  // Each set as the lifecycle table above defines it.
  const derived: Record<IntentTag, string[]> = {
    live: STATES.filter((s) => !terminal.includes(s)).sort(),
    deadline: from((r) => r.event === 'EXPIRE'),
    payable: from((r) => r.event === 'SUBMIT'),
    watching: from((r) => r.event.startsWith('CHAIN_')),
    paid: to((r) => r.event === 'CHAIN_CONFIRMED' || r.event === 'CHAIN_FINALIZED'),
    refundable: to((r) => r.event === 'CHAIN_CONFIRMED' || r.event === 'CHAIN_FINALIZED'),
    closed: STATES.filter((s) => !rows.some((r) => r.from === s)).sort(),
    terminal,
  };

  it('lists every tag of the machine, once', () => {
    expect([...table.keys()].sort()).toEqual([...INTENT_TAGS].sort());
  });

  for (const tag of INTENT_TAGS) {
    it(`${tag}: the README, the lifecycle table and the machine agree`, () => {
      expect(table.get(tag)).toEqual(derived[tag]);
      expect([...statesTagged(tag)].sort()).toEqual(derived[tag]);
    });
  }
});
