// The embedded list must equal data/sanctions: a refreshed snapshot without
// `bun scripts/embed-sanctions.ts` fails here instead of shipping the old list.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANCTIONED_EVM, SANCTIONED_SOLANA } from '../../src/screening/list.generated';
import { addressLines, parseSanctionFiles, readListDir } from '../../src/screening/parse';

describe('embedded sanctions list', () => {
  it('matches data/sanctions (run bun scripts/embed-sanctions.ts after a refresh)', () => {
    const fromFiles = readListDir(join(import.meta.dirname, '../../data/sanctions'));
    expect([...SANCTIONED_EVM]).toEqual(fromFiles.evm);
    expect([...SANCTIONED_SOLANA]).toEqual(fromFiles.solana);
  });

  it('holds the 81 EVM addresses of every file and the one Solana address of the snapshot', () => {
    expect(SANCTIONED_EVM).toHaveLength(81);
    expect(SANCTIONED_EVM.every((a) => /^0x[0-9a-f]{40}$/.test(a))).toBe(true);
    expect(SANCTIONED_SOLANA).toEqual(['42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi']);
  });
});

describe('parseSanctionFiles', () => {
  it('takes 0x from every file, Solana only from SOL, and skips Bitcoin and Tron entries', () => {
    const list = parseSanctionFiles([
      { name: 'sanctioned_addresses_USDT.txt', text: '0xAbC0000000000000000000000000000000000001\nTA3941uFAvmVibSkQ6fMJXxmaSNovX86mz\n' },
      { name: 'sanctioned_addresses_ETH.txt', text: '0xabc0000000000000000000000000000000000001\n' },
      { name: 'sanctioned_addresses_XBT.txt', text: '16iWn2J1McqjToYLHSsAyS6En3QA8YQ91H\n' },
      { name: 'sanctioned_addresses_SOL.txt', text: '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi\r\n\n' },
    ]);
    expect(list).toEqual({
      evm: ['0xabc0000000000000000000000000000000000001'],
      solana: ['42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi'],
    });
  });

  it('reads address lines without comments or blanks', () => {
    expect(addressLines('# header\n a1 \n\nb2 # note\n#x\n')).toEqual(['a1', 'b2']);
  });
});
