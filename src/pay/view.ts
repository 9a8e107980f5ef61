// What the payment page shows for one intent: derived from the row, nothing else. The page is
// the payer's capability for ONE intent (its payToken): no field here names another intent, the
// merchant's account id, or the wallet attached to the payment (who else pays: for-payer.ts).
import { formatAmount } from '../domain/money';
import { eip681TransferUri, solanaPayTransactionRequestUri } from '../domain/payment-uri';

export interface PayIntent {
  state: string;
  chain: string;
  token: string;
  tokenAddress: string;
  decimals: number;
  amountBaseUnits: bigint;
  requestor: string;
  fulfiller: string | null;
  expiresAt: number;
  txSignature: string | null;
  retryRequired: boolean;
  /** Set when money arrived after the intent closed (contract 11); the page says so. */
  latePayment: unknown | null;
  payToken: string;
}

export interface PayNetwork {
  name: string;
  family: 'solana' | 'evm';
  evmChainId?: number;
}

export interface PayView {
  merchant: string;
  amount: string;
  token: string;
  tokenAddress: string;
  amountBaseUnits: string;
  decimals: number;
  network: string;
  family: 'solana' | 'evm';
  chain: string;
  evmChainId: number | null;
  requestor: string;
  expiresAt: string;
  /** What the QR encodes: EIP-681 on EVM, the Solana Pay transaction request on Solana. */
  qrUri: string;
  status: PayStatus;
}

/** `GET /pay/<token>/status` (contract 12) plus what the end screens need. */
export interface PayStatus {
  state: string;
  expiresAt: string;
  txSignature: string | null;
  retryRequired: boolean;
  /** The "late payment noticed" end screen: only that it happened, nothing about the merchant's ledger. */
  latePayment: boolean;
}

/** May `wallet` pay `i`: no wallet attached yet, or this one (EVM addresses compare case-insensitively). */
export function walletMayPay(i: PayIntent, family: 'solana' | 'evm', wallet: string): boolean {
  if (i.fulfiller === null) return true;
  return family === 'evm' ? i.fulfiller.toLowerCase() === wallet.toLowerCase() : i.fulfiller === wallet;
}

export const payStatus = (i: PayIntent): PayStatus => ({
  state: i.state,
  expiresAt: new Date(i.expiresAt).toISOString(),
  txSignature: i.txSignature,
  retryRequired: i.retryRequired,
  latePayment: i.latePayment !== null,
});

export function payView(i: PayIntent, network: PayNetwork, merchant: string, publicUrl: string): PayView {
  const qrUri =
    network.family === 'evm'
      ? eip681TransferUri({ tokenAddress: i.tokenAddress, chainId: network.evmChainId ?? 0, requestor: i.requestor, amountBaseUnits: i.amountBaseUnits })
      : solanaPayTransactionRequestUri(`${publicUrl}/pay/${i.payToken}/solana-pay`);
  return {
    merchant,
    amount: formatAmount(i.amountBaseUnits, i.decimals),
    token: i.token,
    tokenAddress: i.tokenAddress,
    amountBaseUnits: i.amountBaseUnits.toString(),
    decimals: i.decimals,
    network: network.name,
    family: network.family,
    chain: i.chain,
    evmChainId: network.evmChainId ?? null,
    requestor: i.requestor,
    expiresAt: new Date(i.expiresAt).toISOString(),
    qrUri,
    status: payStatus(i),
  };
}
