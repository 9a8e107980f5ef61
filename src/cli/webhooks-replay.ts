// `payforge webhooks replay [--account] --mode test|live --since T`: queue a new delivery of every
// event since T to the current endpoint (events written while no endpoint was set were never sent).
// A running server's dispatcher picks them up on its next poll.
import { AppError } from '../domain/errors';
import { accountOf, configFrom, oneOf, parse, print, required, withStore } from './common';
import { parseSince } from './since';

export async function webhooksReplay(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' }, since: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const since = parseSince(required(values, 'since'));
  const out = await withStore(configFrom(values), async ({ repos }) => {
    const accountId = await accountOf(repos, values);
    const ep = await repos.endpoints.get(accountId, mode);
    if (!ep) throw new AppError('webhook.no_endpoint', `Account ${accountId} has no ${mode} endpoint; set one first.`, { param: 'account' });
    const queued = await repos.deliveries.queueReplay({ accountId, mode, since, url: ep.url, now: Date.now() });
    return { account: accountId, mode, url: ep.url, since: new Date(since).toISOString(), queued };
  });
  print(out);
}
