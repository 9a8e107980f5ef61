// Where a webhook may be sent (SSRF policy). Live endpoints: https only, and every address the
// host resolves to must be public. Test endpoints: http allowed, loopback and private allowed
// (http://localhost during development), but never link-local. Cloud metadata addresses are
// refused in every mode, and no URL may carry credentials.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../domain/errors';
import type { Mode } from '../domain/intent';

/** Resolves a host name to all its addresses; injectable so tests can model DNS answers. */
export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlPolicy {
  mode: Mode;
  /** config webhooks.allowPrivateUrls: lifts the address check (not the https rule). */
  allowPrivateUrls: boolean;
}

/** Parse and check the scheme. Returns the URL or a reason it is refused. */
export function checkUrlShape(raw: string, policy: UrlPolicy): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'scheme must be https (or http in test mode)';
  if (policy.mode === 'live' && url.protocol !== 'https:') return 'live-mode endpoints must use https';
  if (url.hostname === '') return 'URL has no host';
  // Credentials in the URL would be stored, shown in delivery lists and sent on every attempt;
  // receivers authenticate us by the signature instead.
  if (url.username !== '' || url.password !== '') return 'URL must not carry credentials (user:password@)';
  return url;
}

/** The URL's host without IPv6 brackets. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Resolve the URL's host and check every address against the policy. Returns the addresses
 * (to connect to exactly those: no second lookup an attacker could rebind) or a refusal reason.
 */
export async function resolveAllowed(url: URL, policy: UrlPolicy, lookup: Lookup = systemLookup): Promise<string[] | string> {
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await lookup(host);
    } catch (e) {
      return `host ${host} does not resolve (${(e as Error).message})`;
    }
    if (addresses.length === 0) return `host ${host} does not resolve`;
  }
  for (const a of addresses) {
    const kind = classifyAddress(a);
    if (kind === 'public') continue;
    if (kind === 'metadata') return `host ${host} resolves to a cloud metadata address (${a})`;
    if (policy.allowPrivateUrls) continue;
    if (policy.mode === 'test' && (kind === 'loopback' || kind === 'private')) continue;
    return `host ${host} resolves to a ${kind} address (${a})`;
  }
  return addresses;
}

/** Full set-endpoint check: shape, then addresses. Throws webhook.invalid_endpoint (param url). */
export async function assertEndpointAllowed(raw: string, policy: UrlPolicy, lookup?: Lookup): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  if (typeof url === 'string') throw invalidEndpoint(url);
  const resolved = await resolveAllowed(url, policy, lookup);
  if (typeof resolved === 'string') throw invalidEndpoint(resolved);
  return url;
}

const invalidEndpoint = (reason: string): AppError =>
  new AppError('webhook.invalid_endpoint', `Webhook endpoint refused: ${reason}`, { param: 'url', details: { reason } });

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'reserved' | 'invalid';

/**
 * Classify one address, in any form a resolver or a URL may hand over: dotted IPv4 and the
 * inet_aton forms (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.0.0.1, short 127.1), IPv6 with
 * or without a zone, and IPv6 that carries an IPv4 address (mapped, compatible, translated,
 * NAT64, 6to4, Teredo, ISATAP), which is judged as that IPv4 address. Unknown or unparsable
 * input is never public.
 */
export function classifyAddress(address: string): AddressKind {
  const a = address.trim().replace(/^\[|\]$/g, '');
  if (a.includes(':')) {
    const g = parseV6(a.split('%')[0]!);
    return g === null ? 'invalid' : classifyV6(g);
  }
  const v4 = parseV4Loose(a);
  return v4 === null ? 'invalid' : classifyV4(v4);
}

/** inet_aton: 1 to 4 parts, each decimal, 0-prefixed octal or 0x hex; the last part fills the rest. */
function parseV4Loose(a: string): number | null {
  const parts = a.split('.');
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) n = p.length === 1 ? 0 : parseInt(p.slice(1), 8);
    else if (/^[1-9][0-9]*$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isSafeInteger(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 2 ** (8 * (4 - nums.length))) return null;
  return nums.reduce((acc, n, i) => acc + n * 2 ** (8 * (3 - i)), 0) + last;
}

const parseV4 = (a: string): number => a.split('.').reduce((n, p) => n * 256 + Number(p), 0);
const inV4 = (ip: number, base: string, bits: number): boolean =>
  Math.floor(ip / 2 ** (32 - bits)) === Math.floor(parseV4(base) / 2 ** (32 - bits));

/**
 * Cloud metadata and platform endpoints, refused in every mode (with allowPrivateUrls too): a
 * webhook there would hand an integrator's secrets to whoever reads the delivery list. Most sit
 * in link-local space; these do not, or deserve a name: Alibaba 100.100.100.200, Azure's
 * WireServer 168.63.129.16 (a public address), Oracle 192.0.0.192, AWS ECS 169.254.170.2.
 */
const METADATA_V4 = new Set(['100.100.100.200', '168.63.129.16', '169.254.169.254', '169.254.170.2', '169.254.170.23', '192.0.0.192'].map(parseV4));

function classifyV4(ip: number): AddressKind {
  if (METADATA_V4.has(ip)) return 'metadata';
  if (inV4(ip, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(ip, '127.0.0.0', 8)) return 'loopback';
  if (inV4(ip, '169.254.0.0', 16)) return 'link-local'; // 169.254.169.254: cloud metadata
  if (inV4(ip, '10.0.0.0', 8) || inV4(ip, '172.16.0.0', 12) || inV4(ip, '192.168.0.0', 16)) return 'private';
  if (inV4(ip, '100.64.0.0', 10)) return 'private'; // CGNAT
  if (inV4(ip, '192.0.0.0', 24) || inV4(ip, '192.0.2.0', 24) || inV4(ip, '198.51.100.0', 24) || inV4(ip, '203.0.113.0', 24))
    return 'reserved'; // protocol assignments, documentation
  if (inV4(ip, '198.18.0.0', 15) || inV4(ip, '224.0.0.0', 4) || inV4(ip, '240.0.0.0', 4))
    return 'reserved'; // benchmarking, multicast, reserved + broadcast
  return 'public';
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a trailing dotted IPv4. */
function parseV6(a: string): number[] | null {
  let s = a.toLowerCase();
  const tail: number[] = [];
  const dotted = s.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    if (!dotted[2]!.split('.').every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return null;
    const n = parseV4(dotted[2]!);
    tail.push(Math.floor(n / 65536), n % 65536);
    s = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const [head, rest] = halves as [string, string | undefined];
  const toGroups = (x: string): number[] | null => {
    if (x === '') return [];
    const out = x.split(':').map((h) => (/^[0-9a-f]{1,4}$/.test(h) ? parseInt(h, 16) : NaN));
    return out.every((n) => !Number.isNaN(n)) ? out : null;
  };
  const left = toGroups(head);
  const right = rest === undefined ? [] : toGroups(rest);
  if (left === null || right === null) return null;
  const fill = 8 - left.length - right.length - tail.length;
  if (fill < 0 || (rest === undefined && fill !== 0) || (rest !== undefined && fill < 1)) return null;
  return [...left, ...new Array(fill).fill(0), ...right, ...tail];
}

/** fd00:ec2::/32: AWS's instance metadata (fd00:ec2::254), DNS and time service over IPv6. */
const isAwsInternalV6 = (g: number[]): boolean => g[0] === 0xfd00 && g[1] === 0x0ec2;

function classifyV6(g: number[]): AddressKind {
  const v4 = (hi: number, lo: number): AddressKind => classifyV4(hi * 65536 + lo);
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  // Forms that reach an IPv4 address: judge that address.
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // IPv4-mapped ::ffff:a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // IPv4-translated ::ffff:0:a.b.c.d
  if (zeros(0, 6)) return v4(g[6]!, g[7]!); // IPv4-compatible ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!); // NAT64 64:ff9b::/96
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'reserved'; // local-use NAT64 64:ff9b:1::/48
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4 2002:AABB:CCDD::/48
  if (g[0] === 0x2001 && g[1] === 0) return worst([v4(g[2]!, g[3]!), v4(~g[6]! & 0xffff, ~g[7]! & 0xffff)]); // Teredo: server, client (inverted)
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) return worst([v4(g[6]!, g[7]!), classifyV6Plain(g)]); // ISATAP interface id
  return classifyV6Plain(g);
}

function classifyV6Plain(g: number[]): AddressKind {
  if (isAwsInternalV6(g)) return 'metadata';
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // discard-only 100::/64
  return 'public';
}

/** The most restricted of several verdicts (an address is as safe as the worst place it reaches). */
function worst(kinds: AddressKind[]): AddressKind {
  return kinds.find((k) => k === 'metadata') ?? kinds.find((k) => k !== 'public') ?? 'public';
}
