// Pay links (contract 12): `payToken` is `pt_` + 32 random base62 made at create; `payUrl` is
// `<publicUrl>/pay/<payToken>`. The public URL is where payers reach this server; it is known only
// once the server listens (port 0 in tests), so startServer sets it once, before any request.
import { randomBase62 } from './ids';

let publicUrl = 'http://127.0.0.1:8080';

export const newPayToken = (): string => `pt_${randomBase62(32)}`;

/** Called at start-up (config publicUrl, else http://<host>:<port> of the listener); no trailing slash. */
export function setPublicUrl(url: string): void {
  publicUrl = url.replace(/\/+$/, '');
}

export const getPublicUrl = (): string => publicUrl;

export const payUrlOf = (payToken: string | null): string | null => (payToken === null ? null : `${publicUrl}/pay/${payToken}`);
