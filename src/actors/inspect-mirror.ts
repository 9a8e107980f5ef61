// serve --inspect: transitions are computed without long-lived actors (step.ts), so the Stately
// inspector is fed by display-only actors that replay each COMMITTED move. They decide nothing
// and do nothing (no-op emit and watch); one whose state is not the row's previous state is
// rebuilt from that row first, so the picture follows the database, not the other way round.
import { createActor, fromCallback, type Actor, type InspectionEvent } from 'xstate';
import { intentMachine, type IntentEvent } from '../../machines/intent.machine';

export interface CommittedMove {
  id: string;
  chain: string;
  /** The row's snapshot before the move; null for a new intent. */
  before: string | null;
  event: IntentEvent | null;
  after: string;
  ended: boolean;
}

const display = intentMachine.provide({
  actions: { emit: () => {} },
  actors: { watchChain: fromCallback(() => () => {}) },
});

export function createInspectMirror(inspect: (e: InspectionEvent) => void) {
  const mirrors = new Map<string, { actor: Actor<typeof display>; json: string }>();
  const start = (m: CommittedMove, json: string | null) => {
    mirrors.get(m.id)?.actor.stop();
    const actor = createActor(display, {
      id: m.id,
      ...(json === null ? {} : { snapshot: JSON.parse(json) }),
      input: { intentId: m.id, family: m.chain.startsWith('solana:') ? 'solana' : 'evm' },
      inspect,
    });
    actor.start();
    return actor;
  };
  return {
    replay(moves: CommittedMove[]): void {
      for (const m of moves) {
        let cur = mirrors.get(m.id);
        if (!cur || cur.json !== m.before) cur = { actor: start(m, m.before), json: m.before ?? '' };
        if (m.event) cur.actor.send(m.event);
        cur.json = m.after;
        mirrors.set(m.id, cur);
        if (m.ended) {
          cur.actor.stop();
          mirrors.delete(m.id);
        }
      }
    },
    stop(): void {
      for (const m of mirrors.values()) m.actor.stop();
      mirrors.clear();
    },
  };
}
