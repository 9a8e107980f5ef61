// The one request body limit of every web surface (1 MiB), and the bounded reader that enforces it
// on a stream whose length nobody declared.
import { AppError } from '../domain/errors';

export const MAX_BODY_BYTES = 1024 * 1024;

export const tooLarge = (): AppError =>
  new AppError('request.too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`, { details: { max_bytes: MAX_BODY_BYTES } });

/** The whole stream, or null once it passes MAX_BODY_BYTES (then it is cancelled, the rest unread). */
export async function readCapped(stream: ReadableStream<Uint8Array>): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
