// `payforge health [--port] [--host]`: exit 0 when the server on this host answers GET /healthz.
// The Docker HEALTHCHECK uses it, so the image needs no curl.
import { configFrom, parse, print } from './common';

export async function health(argv: string[]): Promise<void> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } });
  const config = configFrom(values, { port: values.port as string | undefined, host: values.host as string | undefined });
  // A server bound to every interface is reached on loopback.
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/healthz`;
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  print({ url, status: res.status });
}
