// PATCH an intent's reference and metadata with optimistic concurrency on updatedAt.
// Not a lifecycle change: no state move, no webhook.
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { iso, toWire, type PaymentIntentWire } from '../domain/intent';
import { ownedBy } from './load-intent';
import type { Services } from './services';
import { checkMetadata, checkReference } from './validate-intent-fields';

/** The intent and the body as the edge's schema admits it (exact: only these keys). */
export interface UpdateIntentInput {
  id: string;
  updatedAt: string;
  /** Present = set (null clears); absent = unchanged. */
  reference?: string | null;
  metadata?: Record<string, string>;
}

export async function updateIntent(s: Services, caller: Caller, input: UpdateIntentInput): Promise<{ intent: PaymentIntentWire }> {
  const { id, ...body } = input;
  if (Number.isNaN(Date.parse(body.updatedAt))) {
    throw invalidParam('updatedAt', 'updatedAt is required: the intent\'s current updatedAt (ISO 8601).');
  }
  const expected = Date.parse(body.updatedAt);
  const fields: { reference?: string | null; metadata?: Record<string, string> } = {};
  if (Object.hasOwn(body, 'reference')) fields.reference = checkReference(body.reference);
  if (Object.hasOwn(body, 'metadata')) fields.metadata = checkMetadata(body.metadata);
  ownedBy(caller, await s.intents.get(id), id);
  const updated = await s.runtime.write(async (tx) => {
    const cur = ownedBy(caller, await tx.get(id), id);
    if (cur.updatedAt !== expected) {
      throw new AppError('intent.stale_update', 'The intent changed since you read it; fetch it again and retry.', {
        param: 'updatedAt',
        details: { intent_id: id, current_updated_at: iso(cur.updatedAt) },
      });
    }
    return tx.patch(cur, fields);
  });
  return { intent: toWire(updated) };
}
