// `payforge machine --json` prints the machine CONFIG: createMachine(JSON.parse(output)) must
// rebuild the same states, events and targets as intentMachine (Stately's editor imports it).
import { describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { intentMachine } from '../../machines/intent.machine';
import { runCli } from '../support/cli';

/** Every transition as "state --EVENT--> target(s)" (guards by name), sorted. */
function edges(m: AnyStateMachine): string[] {
  const out: string[] = [];
  for (const node of Object.values(m.states) as Array<{ key: string; transitions: Map<string, Array<{ target?: Array<{ key: string }>; guard?: unknown }>> }>) {
    for (const [event, list] of node.transitions) {
      for (const t of list) {
        const g = typeof t.guard === 'string' ? t.guard : (t.guard as { type?: string } | undefined)?.type ?? '';
        out.push(`${node.key} --${event}${g ? `[${g}]` : ''}--> ${(t.target ?? []).map((n) => n.key).join(',') || '(self)'}`);
      }
    }
  }
  return out.sort();
}

describe('machine --json', () => {
  it('createMachine(JSON.parse(output)) has the same states, events and targets', async () => {
    const r = await runCli(['machine', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rebuilt = createMachine(JSON.parse(r.stdout));
    expect(Object.keys(rebuilt.states)).toEqual(Object.keys(intentMachine.states));
    expect([...rebuilt.events].sort()).toEqual([...intentMachine.events].sort());
    expect(edges(rebuilt)).toEqual(edges(intentMachine));
    expect(edges(rebuilt).length).toBeGreaterThan(20);
    expect(rebuilt.config.initial).toBe('created');
  });
});
