// `payforge webhooks rotate-secret --account --mode`: prints {secret}; the old one keeps
// signing for webhooks.rotationOverlapSeconds.
import { rotateSecret } from '../webhooks/rotate-secret';
import { webhookServices } from '../webhooks/services';
import { accountOf, configFrom, oneOf, parse, print, required, withStore } from './common';

export async function webhooksRotateSecret(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const config = configFrom(values);
  const { secret } = await withStore(config, async ({ repos }) => rotateSecret(webhookServices(repos, config), { accountId: await accountOf(repos, values), mode }));
  print({ secret });
}
