// The optional remote screening provider (Chainalysis-compatible sanctions API):
// GET {url}/api/v1/address/{address} with X-API-Key; non-empty `identifications` = match.
// Any failure to get a clear answer is 'unavailable', never 'clean': screening fails closed.

export interface ProviderConfig {
  url: string;
  apiKey: string;
  timeoutMs: number;
}

export type ProviderVerdict = { kind: 'match' } | { kind: 'clear' } | { kind: 'unavailable'; reason: string };

export async function queryProvider(
  cfg: ProviderConfig,
  address: string,
  doFetch: typeof fetch,
): Promise<ProviderVerdict> {
  const url = `${cfg.url.replace(/\/+$/, '')}/api/v1/address/${encodeURIComponent(address)}`;
  let res: Response;
  let text: string;
  try {
    res = await doFetch(url, {
      headers: { 'X-API-Key': cfg.apiKey, accept: 'application/json' },
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
    text = await res.text();
  } catch (e) {
    const name = e instanceof Error ? e.name : 'Error';
    // Reasons stay free of the URL and key; they end up in logs through `cause`.
    return { kind: 'unavailable', reason: name === 'TimeoutError' ? 'timed out' : `request failed (${name})` };
  }
  if (!res.ok) return { kind: 'unavailable', reason: `HTTP ${res.status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'unavailable', reason: 'unparseable body' };
  }
  const ids = (body as { identifications?: unknown } | null)?.identifications;
  if (!Array.isArray(ids)) return { kind: 'unavailable', reason: 'body has no identifications array' };
  return ids.length > 0 ? { kind: 'match' } : { kind: 'clear' };
}
