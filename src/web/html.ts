// Escaping HTML for every web surface (dashboard, payment page): one tagged template whose
// interpolations are escaped unless they are Safe fragments, so no stored value becomes markup.

export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(v: unknown): string {
  return String(v).replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Safe) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(v);
}

/** Tagged template: interpolations are escaped; Safe values and arrays of them are kept. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Safe(out);
}

/** A URL path segment or query value, then escaped by the template as an attribute. */
export const enc = encodeURIComponent;
