// Paid means money moved (contract 14): before a transfer is broadcast, its source must be a
// token account of the intent's mint owned by the signer (fee payer), and not the destination.
// A delegate's self-transfer (source = destination = the requestor's account) moves nothing;
// a delegate spending someone else's account moves money whose owner was never screened.
import { address } from '@solana/kit';
import { getTokenDecoder } from '@solana-program/token';
import type { RpcPool } from '../../rpc/types';
import type { ChainIntent } from '../types';
import type { Difference } from './payment-check';
import { TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM } from './programs';
import { getMultipleAccounts } from './rpc';

export async function findSourceProblems(
  rpc: RpcPool,
  intent: ChainIntent,
  feePayer: string,
  transfer: { source: string; destination: string },
): Promise<Difference[]> {
  const wrong = (expected: string, actual: unknown): Difference[] => [{ field: 'source', expected, actual }];
  const mine = `a token account of ${feePayer} for ${intent.tokenAddress}, not the destination`;
  if (transfer.source === transfer.destination) return wrong(mine, transfer.source);
  const [account] = await getMultipleAccounts(rpc, [address(transfer.source)], 'confirmed');
  // No account there moves nothing: the node's preflight refuses the transfer (transaction.rejected).
  if (!account) return [];
  const data = Buffer.from(account.data[0], 'base64');
  if (account.owner !== TOKEN_PROGRAM || data.length !== TOKEN_ACCOUNT_SIZE) return wrong(mine, `${transfer.source} (not an SPL token account)`);
  const token = getTokenDecoder().decode(new Uint8Array(data));
  if (token.mint !== intent.tokenAddress) return wrong(mine, `${transfer.source} (mint ${token.mint})`);
  if (token.owner !== feePayer) return wrong(mine, `${transfer.source} (owned by ${token.owner})`);
  return [];
}
