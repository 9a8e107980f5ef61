// `payforge webhooks replay [--account] --mode test|live --since T`: queue a new delivery of every
// event since T to the current endpoint (events written while no endpoint was set were never sent).
// A running server's dispatcher picks them up on its next poll.
import { AppError } from '../domain/errors';
import { queueReplay } from '../store/event-replay';
import { getEndpoint } from '../store/webhook-endpoints';
import { accountOf, configFrom, oneOf, parse, print, required, withDb } from './common';
import { parseSince } from './since';

export async function webhooksReplay(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' }, since: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const since = parseSince(required(values, 'since'));
  const out = await withDb(configFrom(values), (db) => {
    const accountId = accountOf(db, values);
    const ep = getEndpoint(db, accountId, mode);
    if (!ep) throw new AppError('webhook.no_endpoint', `Account ${accountId} has no ${mode} endpoint; set one first.`, { param: 'account' });
    return { account: accountId, mode, url: ep.url, since: new Date(since).toISOString(), queued: queueReplay(db, { accountId, mode, since, url: ep.url, now: Date.now() }) };
  });
  print(out);
}
