// A wallet re-pricing a built message: the same payment with another compute-unit price, so
// another signature. Tests use it for "a different valid transaction for the same intent".
import { getCompiledTransactionMessageDecoder, getCompiledTransactionMessageEncoder } from '@solana/kit';

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const SET_COMPUTE_UNIT_PRICE = 3;

export function withComputeUnitPrice(blob: string, microLamports: number): string {
  const message = getCompiledTransactionMessageDecoder().decode(new Uint8Array(Buffer.from(blob, 'base64')) as never) as {
    staticAccounts: string[];
    instructions: Array<{ programAddressIndex: number; data?: Uint8Array }>;
  };
  let found = false;
  const instructions = message.instructions.map((ix) => {
    if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET || ix.data?.[0] !== SET_COMPUTE_UNIT_PRICE) return ix;
    found = true;
    const data = new Uint8Array(9);
    data[0] = SET_COMPUTE_UNIT_PRICE;
    new DataView(data.buffer).setBigUint64(1, BigInt(microLamports), true);
    return { ...ix, data };
  });
  if (!found) throw new Error('reprice: the message sets no compute-unit price');
  return Buffer.from(getCompiledTransactionMessageEncoder().encode({ ...message, instructions } as never)).toString('base64');
}
