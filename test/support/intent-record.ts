// An intent record as the domain sees it (no store): the one factory behind test/support/db.ts's
// storedIntent and the domain tests that render intents.
import { newId } from '../../src/domain/ids';
import type { IntentRecord } from '../../src/domain/intent';
import { newPayToken } from '../../src/domain/pay-url';
import { FRESH_LIFECYCLE } from '../../src/intents/fresh-intent';

export function intentRecord(over: Partial<IntentRecord> = {}): IntentRecord {
  const now = 1_700_000_000_000;
  return {
    id: newId('pi'),
    accountId: 'acct_a',
    mode: 'test',
    chain: 'eip155:84532',
    token: 'USDC',
    tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    decimals: 6,
    amountBaseUnits: 12_340_000n,
    requestor: '0x1111111111111111111111111111111111111111',
    fulfiller: null,
    direction: 'request',
    solanaReference: null,
    state: 'created',
    reference: null,
    metadata: {},
    idempotencyKey: null,
    ttlSeconds: 900,
    expiresAt: now + 900_000,
    createdAt: now,
    updatedAt: now,
    refundOf: null,
    payToken: newPayToken(),
    ...FRESH_LIFECYCLE,
    ...over,
  };
}
