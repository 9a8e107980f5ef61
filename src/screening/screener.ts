// Sanctions screening of wallet addresses: the built-in OFAC snapshot (or screening.listDir),
// extra addresses from config, then the optional remote provider. Lists load once at creation.
import { readFileSync } from 'node:fs';
import type { Config } from '../config.types';
import { AppError } from '../domain/errors';
import { SANCTIONED_EVM, SANCTIONED_SOLANA } from './list.generated';
import { addressLines, isEvmAddress, readListDir } from './parse';
import { queryProvider, type ProviderVerdict } from './provider';

export interface ScreenItem {
  address: string;
  /** The request field the address came from, reported as the error's `param`. */
  param: string;
  family: 'solana' | 'evm';
}

export interface Screener {
  /** Resolves when no address matches; throws address.sanctions_match or screening.unavailable. */
  screen(items: ScreenItem[]): Promise<void>;
  /** How many addresses the local lists hold (built-in or listDir, plus extras). */
  size(): { evm: number; solana: number };
}

/** Used in screening.unavailable so callers back off (contract section 7: every 503 has it). */
export const SCREENING_RETRY_AFTER_SECONDS = 5;

export function createScreener(cfg: Config['screening'], opts: { fetch?: typeof fetch } = {}): Screener {
  const doFetch = opts.fetch ?? fetch;
  const base = cfg.listDir ? readListDir(cfg.listDir) : { evm: SANCTIONED_EVM, solana: SANCTIONED_SOLANA };
  const evm = new Set(base.evm);
  const solana = new Set(base.solana);
  const extras = cfg.extraAddresses.map((a) => a.trim()).filter((a) => a !== '');
  // A missing extra file throws here, at boot, rather than silently screening less.
  if (cfg.extraAddressesFile) extras.push(...addressLines(readFileSync(cfg.extraAddressesFile, 'utf8')));
  // Extras carry no family: 0x ones are EVM (case-insensitive), anything else compares exactly.
  for (const a of extras) (isEvmAddress(a) ? evm.add(a.toLowerCase()) : solana.add(a));

  const listed = (item: ScreenItem) =>
    item.family === 'evm' ? evm.has(item.address.toLowerCase()) : solana.has(item.address);

  const matchError = (item: ScreenItem) =>
    new AppError('address.sanctions_match', `The address ${item.address} is on a sanctions list`, {
      param: item.param,
      details: { address: item.address },
    });

  return {
    async screen(items) {
      // Local lists first: a known address is refused without any network call.
      const hit = items.find(listed);
      if (hit) throw matchError(hit);
      const provider = cfg.provider;
      if (!provider || items.length === 0) return;

      const verdicts: ProviderVerdict[] = await Promise.all(
        items.map((i) => queryProvider(provider, i.address, doFetch)),
      );
      // A definite match outranks an outage elsewhere in the same request.
      const matched = items.find((_, n) => verdicts[n]!.kind === 'match');
      if (matched) throw matchError(matched);
      const down = verdicts.flatMap((v, n) => (v.kind === 'unavailable' ? [`${items[n]!.param}: ${v.reason}`] : []));
      if (down.length > 0) {
        throw new AppError('screening.unavailable', 'The sanctions screening provider is unavailable; retry later', {
          details: { retry_after: SCREENING_RETRY_AFTER_SECONDS },
          cause: new Error(`screening provider: ${down.join('; ')}`),
        });
      }
    },
    size: () => ({ evm: evm.size, solana: solana.size }),
  };
}
