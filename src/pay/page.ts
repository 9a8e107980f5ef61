// The payment page's HTML (contract 12): merchant, amount, network, countdown, the QR of the pay URI,
// wallet buttons, live state and the end screens. The summary (merchant, amount, token) stays on
// every screen: on the Paid screen it is the payer's receipt. Every value goes through the dashboard's escaping
// `html` template; the one script is inline with a per-response nonce (strict CSP, no other origin).
import { html, Safe } from '../web/html';
import { PAY_CLIENT_JS } from './client';
import type { PayView } from './view';

const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#17202e;background:#eef1f5}
main{max-width:440px;margin:0 auto;padding:20px 16px}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 3px #0002;padding:20px}
h1{font-size:15px;font-weight:600;color:#56607a;margin:0 0 4px}
.amount{font-size:34px;font-weight:700;margin:0}.amount small{font-size:18px;color:#56607a}
.meta{display:flex;justify-content:space-between;color:#56607a;font-size:14px;margin:8px 0 16px}
.qr{display:block;width:100%;max-width:280px;margin:0 auto;background:#fff}.qr svg{width:100%;height:auto;display:block}
.uri{display:block;text-align:center;margin:10px 0 16px;word-break:break-all;font-size:13px}
button{display:block;width:100%;font:inherit;font-weight:600;padding:12px;border-radius:10px;border:0;background:#2752e7;color:#fff;margin:8px 0;cursor:pointer}
button:disabled{opacity:.6;cursor:default}
#state{padding:10px 12px;border-radius:10px;background:#f3f5f9;margin-top:12px}
#message{min-height:1.5em;color:#a11a1a;margin:8px 0 0}
.end{text-align:center}.end h2{margin:8px 0}.end p{color:#56607a}
[hidden]{display:none!important}
@media (max-width:360px){.amount{font-size:28px}}
`;

export function payPage(v: PayView, nonce: string, qr: string): string {
  const data = JSON.stringify(v).replace(/</g, '\\u003c');
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>Pay ${v.amount} ${v.token} to ${v.merchant}</title><style nonce="${nonce}">${raw(CSS)}</style></head>
<body><main><div class="card">
<header id="summary">
<h1 id="merchant">Pay ${v.merchant}</h1>
<p class="amount" data-testid="amount">${v.amount} <small>${v.token}</small></p>
</header>
<section id="pay" aria-labelledby="merchant">
<div class="meta"><span data-testid="network">${v.network}</span><span>Expires in <time id="countdown" datetime="${v.expiresAt}">${v.expiresAt}</time></span></div>
<a class="qr" id="qr" href="${v.qrUri}" aria-label="QR code to pay with a wallet app: scan it with your phone">${raw(qr)}</a>
<a class="uri" href="${v.qrUri}">Open in a wallet app</a>
<div id="wallets" role="group" aria-label="Wallets in this browser"></div>
<p id="message" role="alert"></p>
</section>
<section id="end" class="end" hidden aria-live="polite"><h2 id="end-title"></h2><p data-testid="end-network">Network: ${v.network}</p><p id="end-text"></p></section>
<p id="state" role="status" aria-live="polite">Waiting for payment…</p>
</div></main>
<script id="pay-data" type="application/json" nonce="${nonce}">${raw(data)}</script>
<script nonce="${nonce}">${raw(PAY_CLIENT_JS)}</script></body></html>`}`;
}

/** The page for an unknown, malformed or foreign token: says nothing about any intent. */
export function notFoundPage(nonce: string): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>Payment link not found</title><style nonce="${nonce}">${raw(CSS)}</style></head>
<body><main><div class="card end"><h2>Payment link not found</h2><p>This link is not valid. Ask the merchant for a new one.</p></div></main></body></html>`}`;
}

/** Trusted markup: our CSS, the server-rendered QR SVG, the client script, JSON with `<` escaped. */
const raw = (s: string): Safe => new Safe(s);
