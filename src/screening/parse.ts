// Turns OFAC snapshot files (sanctioned_addresses_<TICKER>.txt) and extra-address files into
// the two sets the screener compares against. Shared by scripts/embed-sanctions.ts and listDir.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SanctionList {
  /** 0x addresses, lowercased (EVM compares case-insensitively), deduplicated, sorted. */
  evm: string[];
  /** Base58 addresses exactly as listed (Solana compares exactly), deduplicated, sorted. */
  solana: string[];
}

const EVM = /^0x[0-9a-fA-F]{40}$/;
const SOLANA = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const FILE = /^sanctioned_addresses_([A-Za-z0-9]+)\.txt$/;

/** Non-empty lines with `#` comments and surrounding blanks removed. */
export function addressLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '');
}

/**
 * OFAC tickers do not name a chain: an "ETH", "USDT" or "ARB" 0x address can hold funds on any
 * EVM chain, so 0x addresses come from every file. Solana addresses come from the SOL file only,
 * because other tickers' base58 entries are Bitcoin (1…, 3…) or Tron (T…) addresses on chains
 * PayForge does not serve; they could never be a requestor or fulfiller here.
 */
export function parseSanctionFiles(files: Array<{ name: string; text: string }>): SanctionList {
  const evm = new Set<string>();
  const solana = new Set<string>();
  for (const f of files) {
    const ticker = FILE.exec(f.name)?.[1]?.toUpperCase();
    for (const line of addressLines(f.text)) {
      if (EVM.test(line)) evm.add(line.toLowerCase());
      else if (ticker === 'SOL' && SOLANA.test(line)) solana.add(line);
    }
  }
  return { evm: [...evm].sort(), solana: [...solana].sort() };
}

/** Reads every sanctioned_addresses_*.txt in dir; throws when there is none (a typo must not disable screening). */
export function readListDir(dir: string): SanctionList {
  const names = readdirSync(dir)
    .filter((n) => FILE.test(n))
    .sort();
  if (names.length === 0) throw new Error(`screening.listDir ${dir}: no sanctioned_addresses_*.txt files`);
  return parseSanctionFiles(names.map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') })));
}

export function isEvmAddress(a: string): boolean {
  return EVM.test(a);
}
