// The persisted snapshot of a new intent comes from a per-family template with the id put in: it
// must be exactly what a fresh actor of the machine persists, for any id, on both families, and
// restore to `created` with that id.
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { initialSnapshotJson, snapshotOf } from '../../src/actors/step';
import { intentMachine, MACHINE_VERSION } from '../../machines/intent.machine';

describe('initialSnapshotJson', () => {
  for (const [chain, family] of [['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'solana'], ['eip155:84532', 'evm'], ['eip155:42431', 'evm']] as const) {
    it(`equals a fresh actor's persisted snapshot (${chain})`, () => {
      for (let k = 0; k < 20; k++) {
        const id = newId('pi');
        const fresh = createActor(intentMachine, { id, input: { intentId: id, family } }).getSnapshot();
        expect(initialSnapshotJson(id, chain)).toBe(JSON.stringify(intentMachine.getPersistedSnapshot(fresh)));
        const restored = snapshotOf({ id, chain, snapshot: initialSnapshotJson(id, chain), machineVersion: MACHINE_VERSION });
        expect(restored.value).toBe('created');
        expect(restored.context.intentId).toBe(id);
        expect(restored.context.family).toBe(family);
      }
    });
  }
});
