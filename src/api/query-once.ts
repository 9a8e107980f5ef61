// A query parameter given twice (?limit=1&limit=2) is a 400 naming it: the query parser keeps the
// last value, so the caller's page, filter or cursor would be another than one of those it sent.
import { invalidParam } from '../domain/errors';

/** Throws 400 request.invalid_param for the first name that occurs twice in the query of `url`. */
export function refuseRepeatedQuery(url: string): void {
  const q = url.indexOf('?');
  if (q < 0) return;
  const seen = new Set<string>();
  // Names as the parser reads them (percent-decoded, + as a space): %6Cimit is limit.
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (seen.has(name)) throw invalidParam(name, `${name}: given more than once; send it once.`);
    seen.add(name);
  }
}
