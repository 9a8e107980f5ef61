// Helper processes (chain, proxy, receiver) announce themselves in one JSON line on stdout: read it.
/** The first stdout line of a child process, parsed as JSON (children announce their URLs so). */
export async function firstLine<T = any>(stream: ReadableStream<Uint8Array>, timeoutMs = 30_000): Promise<T> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let out = '';
  const deadline = setTimeout(() => reader.cancel('timeout').catch(() => {}), timeoutMs);
  while (!out.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`child closed stdout before its first line: ${out}`);
    out += dec.decode(value);
  }
  clearTimeout(deadline);
  reader.releaseLock();
  return JSON.parse(out.slice(0, out.indexOf('\n'))) as T;
}
