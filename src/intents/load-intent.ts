// Loading an intent for a caller: another account's or the other mode's intent is 404, never
// 403, so the API does not reveal that it exists.
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { StoredIntent } from '../store/intents';

export function notFound(id: string): AppError {
  return new AppError('intent.not_found', `No intent ${id}.`, { details: { intent_id: id } });
}

export function ownedBy(caller: Caller, i: StoredIntent | null, id: string): StoredIntent {
  if (!i || i.accountId !== caller.accountId || i.mode !== caller.mode) throw notFound(id);
  return i;
}
