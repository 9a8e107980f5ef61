// What a wallet or a QR code needs to pay an intent with no `build` at all (contract 11 and 12):
// the Solana Pay transfer-request URI, the Solana Pay transaction-request URI (the payment page's
// QR), and the EIP-681 token-transfer URI. Pure string building; amounts are exact decimal strings.
import { baseUnitsText } from './money';

export interface SolanaPayTransfer {
  requestor: string;
  /** Decimal string in token units, e.g. "12.34" (formatAmount of the base units). */
  amount: string;
  mint: string;
  reference: string | null;
  /** Shown by the wallet: the merchant's account name. */
  label: string | null;
}

/** `solana:<requestor>?amount=<amount>&spl-token=<mint>&reference=<ref>[&label=<name>]`. */
export function solanaPayTransferUri(p: SolanaPayTransfer): string {
  const q = [`amount=${p.amount}`, `spl-token=${p.mint}`];
  if (p.reference !== null) q.push(`reference=${p.reference}`);
  if (p.label !== null && p.label !== '') q.push(`label=${encodeURIComponent(p.label)}`);
  return `solana:${p.requestor}?${q.join('&')}`;
}

/** `solana:<url-encoded https link>`: a Solana Pay wallet GETs then POSTs that link (transaction request). */
export function solanaPayTransactionRequestUri(link: string): string {
  return `solana:${encodeURIComponent(link)}`;
}

export interface Eip681Transfer {
  tokenAddress: string;
  chainId: number;
  requestor: string;
  amountBaseUnits: bigint;
}

/** `ethereum:<token>@<chainId>/transfer?address=<requestor>&uint256=<base units>` (EIP-681). */
export function eip681TransferUri(p: Eip681Transfer): string {
  return `ethereum:${p.tokenAddress}@${p.chainId}/transfer?address=${p.requestor}&uint256=${baseUnitsText(p.amountBaseUnits)}`;
}
