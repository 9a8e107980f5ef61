// The URIs wallets read, exactly as contract sections 11 and 12 write them.
import { describe, expect, it } from 'vitest';
import { eip681TransferUri, solanaPayTransactionRequestUri, solanaPayTransferUri } from '../../src/domain/payment-uri';

describe('payment URIs', () => {
  it('Solana Pay transfer request: amount as a decimal, spl-token, reference, label URL-encoded', () => {
    expect(
      solanaPayTransferUri({
        requestor: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
        amount: '12.34',
        mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
        reference: 'FYa3wdHrJmfpkNwfW8ncYbRoWZcbdGNYdP9dqNDaBL4J',
        label: 'Acme & Co',
      }),
    ).toBe(
      'solana:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin?amount=12.34&spl-token=4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU&reference=FYa3wdHrJmfpkNwfW8ncYbRoWZcbdGNYdP9dqNDaBL4J&label=Acme%20%26%20Co',
    );
  });

  it('Solana Pay transaction request: the link URL-encoded after solana:', () => {
    expect(solanaPayTransactionRequestUri('https://pay.example/pay/pt_abc/solana-pay?x=1')).toBe(
      'solana:https%3A%2F%2Fpay.example%2Fpay%2Fpt_abc%2Fsolana-pay%3Fx%3D1',
    );
  });

  it('EIP-681 transfer: token@chainId/transfer with the base units as uint256', () => {
    expect(
      eip681TransferUri({
        tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        chainId: 84532,
        requestor: '0x1111111111111111111111111111111111111111',
        amountBaseUnits: 12_340_000n,
      }),
    ).toBe('ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x1111111111111111111111111111111111111111&uint256=12340000');
    // 2^256 - 1 stays exact (no floats anywhere).
    expect(eip681TransferUri({ tokenAddress: '0xA', chainId: 1, requestor: '0xB', amountBaseUnits: 2n ** 256n - 1n })).toContain(
      `uint256=${(2n ** 256n - 1n).toString()}`,
    );
  });
});
