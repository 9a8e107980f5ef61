// `payforge webhooks set-endpoint --account --mode --url`: prints {url, secret}.
import { webhookServices } from '../webhooks/services';
import { setEndpoint } from '../webhooks/set-endpoint';
import { accountOf, configFrom, oneOf, parse, print, required, withStore } from './common';

export async function webhooksSetEndpoint(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' }, url: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const url = required(values, 'url');
  const config = configFrom(values);
  const result = await withStore(config, async ({ repos }) => setEndpoint(webhookServices(repos, config), { accountId: await accountOf(repos, values), mode }, { url }));
  print({ url: result.url, secret: result.secret });
}
