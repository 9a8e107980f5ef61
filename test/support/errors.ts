// Await a promise that must reject with an AppError, and return that error for assertions.
import { expect } from 'vitest';
import { AppError } from '../../src/domain/errors';

export async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}
