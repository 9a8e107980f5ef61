// A new intent as the runtime writes it: its row (the initial snapshot is the same for every new
// intent of a chain, so it is a template, not an actor), its intent.created event and the move the
// inspector's mirror replays. Shared by the fast create (createNow) and the transaction path.
import { MACHINE_VERSION } from '../../machines/intent.machine';
import type { StoredIntent } from '../store/intents';
import type { CommittedMove } from './inspect-mirror';
import { envelope } from './project-row';
import type { Tx } from './runtime-types';
import { initialSnapshotJson } from './step';

/**
 * A create's new row: the caller's new object itself, its three fields added last (as a spread
 * into a copy would put them): no copy of ~35 fields per create.
 */
export function newRow(fields: Parameters<Tx['insert']>[0]): StoredIntent {
  const row = fields as StoredIntent;
  row.state = 'created';
  row.snapshot = initialSnapshotJson(fields.id, fields.chain);
  row.machineVersion = MACHINE_VERSION;
  return row;
}

/** The same row as a copy, the caller's object left as it is (a create that may find its key stored and answer a replay). */
export function newRowCopy(fields: Parameters<Tx['insert']>[0]): StoredIntent {
  return { ...fields, state: 'created', snapshot: initialSnapshotJson(fields.id, fields.chain), machineVersion: MACHINE_VERSION };
}

/** The intent.created event of a new row, written at `at`. */
export const createdEvent = (row: StoredIntent, at: number) => ({
  envelope: envelope('intent.created', row, at),
  accountId: row.accountId,
  mode: row.mode,
  intentId: row.id,
  createdAt: at,
});

/** A new row's move, for the inspector's mirror. */
export const createdMove = (row: StoredIntent): CommittedMove => ({ id: row.id, chain: row.chain, before: null, event: null, after: row.snapshot, ended: false });
