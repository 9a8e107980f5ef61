// Dashboard sessions: stateless, signed cookies. The cookie is `<expiresAt>.<nonce>.<mac>` where
// mac = HMAC-SHA256(key, "<expiresAt>.<nonce>") and key is derived from the admin token, so the
// token itself never leaves the server, and changing PAYFORGE_ADMIN_TOKEN ends every session.
// The CSRF token of a session is HMAC(key, "csrf.<nonce>"): forms carry it, every POST checks it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const COOKIE_NAME = 'pf_dash';
export const SESSION_TTL_MS = 8 * 3600 * 1000;

export interface Session {
  nonce: string;
  expiresAt: number;
  csrf: string;
}

/** Constant-time string comparison (hashing first makes the lengths equal). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function createSessions(adminToken: string, now: () => number = Date.now) {
  const key = createHmac('sha256', adminToken).update('payforge-dashboard-session-v1').digest();
  const mac = (s: string) => createHmac('sha256', key).update(s).digest('base64url');
  const csrfOf = (nonce: string) => mac(`csrf.${nonce}`);

  return {
    /** True when `token` is the admin token. */
    checkToken: (token: string): boolean => safeEqual(token, adminToken),

    issue(): { cookie: string; session: Session } {
      const nonce = randomBytes(18).toString('base64url');
      const expiresAt = now() + SESSION_TTL_MS;
      const payload = `${expiresAt}.${nonce}`;
      return { cookie: `${payload}.${mac(payload)}`, session: { nonce, expiresAt, csrf: csrfOf(nonce) } };
    },

    /** The session of a cookie value, or null if it is forged, malformed or expired. */
    verify(value: string | undefined): Session | null {
      if (!value) return null;
      const m = /^([0-9]{1,15})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(value);
      if (!m) return null;
      const [, exp, nonce, sig] = m;
      if (!safeEqual(sig!, mac(`${exp}.${nonce}`))) return null;
      const expiresAt = Number(exp);
      if (!(expiresAt > now())) return null;
      return { nonce: nonce!, expiresAt, csrf: csrfOf(nonce!) };
    },

    checkCsrf: (session: Session, token: unknown): boolean => typeof token === 'string' && safeEqual(token, session.csrf),
  };
}

export type Sessions = ReturnType<typeof createSessions>;

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export function sessionCookie(value: string, secure: boolean, maxAgeSeconds: number): string {
  return `${COOKIE_NAME}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}
