// An integrator's program on a client generated from /openapi.json by openapi-typescript, called
// through openapi-fetch: create -> get -> simulate -> refund, and the errors on the way. The
// test (openapi-client.test.ts) copies it beside the generated `api.ts`, type-checks it strictly
// (`tsc --noEmit`, noImplicitAny) and then runs it against a real server. Each `@ts-expect-error`
// is a claim that the types are precise: were a field `any` or a bare `string`, the line would
// compile, the directive would be unused, and tsc would fail.
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type Schemas = components['schemas'];
type IsAny<T> = 0 extends 1 & T ? true : false;
/** Compiles only when T is not `any` (nor a type that contains `any` where it is checked). */
function notAny<T>(value: T, ..._proof: IsAny<T> extends true ? [never] : []): T {
  return value;
}

// The few Node globals it uses, declared here so the check needs no runtime's type package.
declare const process: { argv: string[]; exit(code: number): never };

const [baseUrl, key] = process.argv.slice(2) as [string, string];
const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });
const BASE_SEPOLIA = 'eip155:84532';
const REQUESTOR = '0x1111111111111111111111111111111111111111';
const PAYER = '0x2222222222222222222222222222222222222222';

async function main(): Promise<Record<string, unknown>> {
  const created = await client.POST('/v1/intents', {
    body: { chain: BASE_SEPOLIA, token: 'USDC', amount: '12.340', requestor: REQUESTOR, fulfiller: PAYER, metadata: { order: '42' } },
    params: { header: { 'Idempotency-Key': `typed-${Date.now()}` } },
  });
  if (created.error) throw new Error(`create: ${created.error.error.code}`);
  const intent: Schemas['PaymentIntent'] = notAny(created.data.intent);
  const state: 'created' | 'pending' | 'confirmed' | 'finalized' | 'failed' | 'expired' | 'cancelled' | 'dropped' = notAny(intent.state);
  const late: Schemas['LatePayment'] | null = notAny(intent.latePayment);
  const metadata: Record<string, string> = notAny(intent.metadata);
  // @ts-expect-error a state the API never answers
  if (intent.state === 'paid') throw new Error('unreachable');
  // @ts-expect-error amounts are decimal strings, never numbers
  const wrong: number = intent.amount;
  void wrong;

  const got = await client.GET('/v1/intents/{id}', { params: { path: { id: intent.id } } });
  if (got.error) throw new Error(`get: ${got.error.error.code}`);

  // Never called: only its types are checked.
  // @ts-expect-error targetState is an enum
  const _wrongTarget = () => client.POST('/v1/test/intents/{id}/simulate', { params: { path: { id: intent.id } }, body: { targetState: 'paid' } });
  const simulated = await client.POST('/v1/test/intents/{id}/simulate', { params: { path: { id: intent.id } }, body: { targetState: 'confirmed' } });
  if (simulated.error) throw new Error(`simulate: ${simulated.error.error.code}`);

  const refund = await client.POST('/v1/intents/{id}/refund', { params: { path: { id: intent.id } } });
  if (refund.error) throw new Error(`refund: ${refund.error.error.code}`);

  // The errors are typed too: the envelope, its code from the enum, the field at fault.
  const again = await client.POST('/v1/intents/{id}/refund', { params: { path: { id: intent.id } } });
  const code: Schemas['ErrorCode'] | undefined = notAny(again.error?.error.code);
  const param: string | null | undefined = again.error?.error.param;
  // @ts-expect-error error codes are an enum
  if (again.error?.error.code === 'refund.twice') throw new Error('unreachable');

  const missing = await client.GET('/v1/intents/{id}', { params: { path: { id: 'pi_doesnotexist000000000000' } } });
  const list = await client.GET('/v1/intents', { params: { query: { limit: 2, state: 'confirmed' } } });
  if (list.error) throw new Error(`list: ${list.error.error.code}`);
  const intents: Schemas['PaymentIntent'][] = notAny(list.data.intents);
  const hasMore: boolean = notAny(list.data.hasMore);

  return {
    created: { status: created.response.status, state, amount: intent.amount, late, metadata },
    got: { status: got.response.status, id: got.data.intent.id, requestId: got.response.headers.get('x-request-id') },
    simulated: { status: simulated.response.status, state: simulated.data.intent.state },
    refund: { status: refund.response.status, refundOf: refund.data.intent.refundOf, requestor: refund.data.intent.requestor },
    again: { status: again.response.status, code, param },
    missing: { status: missing.response.status, code: missing.error?.error.code },
    list: { ids: intents.map((i) => i.id), hasMore },
  };
}

main().then(
  (out) => console.log(JSON.stringify(out)),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
