// HTML for the dashboard: the page layout. Every value that reaches a page goes through `html`
// (src/web/html.ts: escaped unless it is itself a Safe fragment), so an intent's reference or
// metadata can never become markup.
import { html, Safe } from '../web/html';

export { enc, escapeHtml, html, Safe } from '../web/html';

export const fmtTime = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '—' : new Date(ms).toISOString());

export interface PageOpts {
  title: string;
  body: Safe;
  /** Logged in: shows the navigation and the logout form. */
  csrf?: string;
  nonce: string;
  active?: 'accounts' | 'intents' | 'live' | 'payments' | 'deliveries';
  /** This page's own script, run after the shared one (same nonce). */
  script?: string;
}

const CSS = `
.pay-qr{max-width:220px;background:#fff}.pay-qr svg{width:100%;height:auto;display:block}.pay-link p{word-break:break-all;margin:0 0 8px}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1c2330;background:#f5f6f8}
header{background:#1c2330;color:#fff;display:flex;flex-wrap:wrap;align-items:center;gap:8px 18px;padding:10px 20px}
header b{font-size:16px;margin-right:10px}header a{color:#c9d3e3;text-decoration:none}header a.on{color:#fff;font-weight:600}
header form{margin-left:auto}main{padding:20px;max-width:1200px;margin:0 auto}
h1{font-size:20px;margin:0 0 14px}h2{font-size:16px;margin:22px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7}
.scroll{overflow-x:auto;max-width:100%}select,input{max-width:100%}.scroll>table{min-width:max-content}
th,td{text-align:left;padding:6px 9px;border-bottom:1px solid #eceff3;vertical-align:top}th{background:#f0f2f5;font-weight:600}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px;word-break:break-all}
a{color:#1f5fbf}.muted{color:#6b7585}.card{background:#fff;border:1px solid #dde1e7;padding:12px 14px;margin-bottom:12px}
.flash{padding:9px 12px;margin-bottom:14px;border:1px solid #9bd3a6;background:#e9f7ec}
.error{padding:9px 12px;margin-bottom:14px;border:1px solid #e3a3a3;background:#fbeaea}
.secret{padding:9px 12px;margin:8px 0;border:1px solid #e6cf7c;background:#fff8dc}
button,input[type=submit]{font:inherit;padding:4px 10px;border:1px solid #8c96a5;background:#fff;border-radius:3px;cursor:pointer}
button.danger{border-color:#c44;color:#a22}input[type=text],input[type=password],input[type=url],select{font:inherit;padding:4px 6px;border:1px solid #aab2be;border-radius:3px}
form.inline{display:inline}.state{display:inline-block;padding:1px 7px;border-radius:9px;background:#e6e9ee;font-size:12px}
.state.finalized,.state.confirmed{background:#dbf1df}.state.failed,.state.expired,.state.cancelled{background:#f6dede}.state.pending,.state.dropped{background:#fbefd0}
dl{display:grid;grid-template-columns:180px 1fr;gap:3px 12px;margin:0}dt{color:#6b7585}dd{margin:0}
.row{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}.row>*{flex:1 1 420px}
tr.lit td{background:#fff6d6}svg text{font-family:system-ui,sans-serif}
.state-node.occupied>rect:first-child{fill:#fff6d6}path.edge.last{stroke:#b7791f;stroke-width:2.2px;marker-end:url(#arrow-lit)}path.edge.hit{stroke:#e8590c;stroke-width:2.6px}
.live-status{font-weight:600}[data-status=live] .live-status{color:#1e7b34}[data-status=reconnecting] .live-status,[data-status=closed] .live-status{color:#a22}
tr.fresh td{background:#eaf4ff}
`;

// Forms with data-confirm ask before submitting (revoke, rotate). Everything works without it.
const JS = `document.addEventListener('submit',function(e){var m=e.target.getAttribute('data-confirm');if(m&&!confirm(m))e.preventDefault();});`;

export function page(o: PageOpts): string {
  const nav = (key: PageOpts['active'], href: string, label: string) => html`<a href="${href}" class="${o.active === key ? 'on' : ''}">${label}</a>`;
  const header = o.csrf
    ? html`<header><b>PayForge</b>${nav('accounts', '/dashboard', 'Accounts')}${nav('intents', '/dashboard/intents', 'Intents')}${nav('live', '/dashboard/live', 'Live')}${nav('payments', '/dashboard/payments', 'Payments')}${nav(
        'deliveries',
        '/dashboard/deliveries',
        'Webhook deliveries',
      )}<form method="post" action="/dashboard/logout">${csrfField(o.csrf)}<button>Log out</button></form></header>`
    : html`<header><b>PayForge</b></header>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><link rel="icon" href="data:,"><title>${o.title} · PayForge</title><style>${new Safe(CSS)}</style></head>
<body>${header}<main>${o.body}</main><script nonce="${o.nonce}">${new Safe(JS + (o.script ?? ''))}</script></body></html>`.value;
}

export function csrfField(token: string): Safe {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}
