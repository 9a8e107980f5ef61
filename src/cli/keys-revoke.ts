// `payforge keys revoke <key-or-key-id>`: the server's per-request lookup stops finding it at once.
import { configFrom, parse, print, UsageError, withStore } from './common';

export async function keysRevoke(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {}, 1);
  const keyOrId = positionals[0];
  if (!keyOrId) throw new UsageError('Missing the key or key id to revoke');
  const k = await withStore(configFrom(values), ({ repos }) => repos.apiKeys.revoke(keyOrId));
  print({ id: k.id, account: k.accountId, mode: k.mode, last4: k.last4, revoked: true, revokedAt: new Date(k.revokedAt ?? Date.now()).toISOString() });
}
