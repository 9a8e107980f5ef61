// Pay links (contract 12): `payToken` is `pt_` + 32 base62 made at create; `payUrl` is
// `<publicUrl>/pay/<payToken>`. The public URL is where payers reach this server; it is known only
// once the server listens (port 0 in tests), so startServer sets it once, before any request.
import { newId } from './ids';

let publicUrl = 'http://127.0.0.1:8080';

/**
 * The 32 characters lead with the creation millisecond (8, as the time-ordered ids do) then 24
 * random ones (~143 bits: still unguessable), so the unique index the page looks tokens up by
 * (intents_pay_token) appends instead of dirtying a random leaf page per create (README Decisions).
 */
export const newPayToken = (now = Date.now()): string => newId('pt', 32, now);

/** Called at start-up (config publicUrl, else http://<host>:<port> of the listener); no trailing slash. */
export function setPublicUrl(url: string): void {
  publicUrl = url.replace(/\/+$/, '');
}

export const getPublicUrl = (): string => publicUrl;

export const payUrlOf = (payToken: string | null): string | null => (payToken === null ? null : `${publicUrl}/pay/${payToken}`);
