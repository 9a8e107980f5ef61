// Where a webhook may be sent (SSRF policy). Live endpoints: https only, and every address the
// host resolves to must be public. Test endpoints: http allowed, loopback and private allowed
// (http://localhost during development), but never link-local: that is where cloud metadata lives.
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
  if (policy.allowPrivateUrls) return addresses;
  for (const a of addresses) {
    const kind = classifyAddress(a);
    if (kind === 'public') continue;
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

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved' | 'invalid';

/** Classify one IP literal. Unknown or unparsable input is never public. */
export function classifyAddress(address: string): AddressKind {
  const v = isIP(address);
  if (v === 4) return classifyV4(parseV4(address));
  if (v === 6) {
    const g = parseV6(address.split('%')[0]!);
    return g === null ? 'invalid' : classifyV6(g);
  }
  return 'invalid';
}

const parseV4 = (a: string): number => a.split('.').reduce((n, p) => n * 256 + Number(p), 0);
const inV4 = (ip: number, base: string, bits: number): boolean =>
  Math.floor(ip / 2 ** (32 - bits)) === Math.floor(parseV4(base) / 2 ** (32 - bits));

function classifyV4(ip: number): AddressKind {
  if (inV4(ip, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(ip, '127.0.0.0', 8)) return 'loopback';
  if (inV4(ip, '169.254.0.0', 16)) return 'link-local'; // 169.254.169.254: cloud metadata
  if (inV4(ip, '10.0.0.0', 8) || inV4(ip, '172.16.0.0', 12) || inV4(ip, '192.168.0.0', 16)) return 'private';
  if (inV4(ip, '100.64.0.0', 10)) return 'private'; // CGNAT; 100.100.100.200 is Alibaba's metadata
  if (inV4(ip, '192.0.0.0', 24) || inV4(ip, '198.18.0.0', 15) || inV4(ip, '224.0.0.0', 4) || inV4(ip, '240.0.0.0', 4))
    return 'reserved'; // protocol assignments, benchmarking, multicast, reserved + broadcast
  return 'public';
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a trailing dotted IPv4. */
function parseV6(a: string): number[] | null {
  let s = a.toLowerCase();
  const tail: number[] = [];
  const dotted = s.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = parseV4(dotted[2]!);
    tail.push(Math.floor(n / 65536), n % 65536);
    s = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const toGroups = (x: string): number[] => (x === '' ? [] : x.split(':').map((h) => parseInt(h, 16)));
  const left = toGroups(head);
  const right = rest === undefined ? [] : toGroups(rest);
  const fill = 8 - left.length - right.length - tail.length;
  if (fill < 0 || (rest === undefined && fill !== 0)) return null;
  const groups = [...left, ...new Array(fill).fill(0), ...right, ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function classifyV6(g: number[]): AddressKind {
  const embeddedV4 = (hi: number, lo: number): AddressKind => classifyV4(hi * 65536 + lo);
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
  // reach the embedded IPv4 address: judge that one.
  if (zeros(0, 5) && g[5] === 0xffff) return embeddedV4(g[6]!, g[7]!);
  if (zeros(0, 6)) return embeddedV4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embeddedV4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return embeddedV4(g[1]!, g[2]!); // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local (AWS metadata fd00:ec2::254)
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'reserved'; // multicast
  return 'public';
}
