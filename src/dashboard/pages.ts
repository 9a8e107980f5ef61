// The dashboard's page bodies. Pure functions from data to Safe HTML (every value escaped by
// `html`); the routes in index.ts read the data and wrap these in the layout.
import type { Account } from '../store/accounts';
import type { ApiKeyInfo } from '../store/api-keys';
import { INTENT_STATES, toWire, type IntentRecord, type IntentState, type Mode } from '../domain/intent';
import { csrfField, enc, fmtTime, html, Safe } from './html';
import { machineSvg, machineTable } from './machine-svg';
import { eventSummary } from './event-summaries';
import type { OperatorIntent } from '../intents/list-intents';
import type { OperatorDelivery } from '../webhooks/list-deliveries';
import type { EndpointInfo, TimelineEvent } from './queries';

/** The intents page's filter, as the operator chose it. */
export interface IntentFilter {
  state?: IntentState;
  accountId?: string;
  mode?: Mode;
}

// A Map: ?done= comes from the URL, and ?done=constructor must find nothing.
export const FLASH: ReadonlyMap<string, string> = new Map([
  ['revoked', 'Key revoked. It answers 401 from now on.'],
  ['endpoint', 'Webhook endpoint saved.'],
  ['rotated', 'Secret rotated. The previous secret keeps signing during the overlap.'],
  ['retried', 'Retry queued: a new delivery of the same event is being sent.'],
]);

export function flash(done: string | undefined): Safe | null {
  const msg = done ? FLASH.get(done) : undefined;
  return msg ? html`<div class="flash">${msg}</div>` : null;
}

export const errorBox = (msg: string | null | undefined): Safe | null => (msg ? html`<div class="error">${msg}</div>` : null);

const state = (s: string) => html`<span class="state ${s}">${s}</span>`;

export function loginBody(error: string | null): Safe {
  return html`<h1>Operator login</h1>${errorBox(error)}
<div class="card" style="max-width:420px"><form method="post" action="/dashboard/login">
<p><label>Admin token<br><input type="password" name="token" autocomplete="current-password" required style="width:100%"></label></p>
<p><button>Log in</button></p></form>
<p class="muted">The token is <code>PAYFORGE_ADMIN_TOKEN</code> (config key <code>adminToken</code>).</p></div>`;
}

export function accountsBody(accounts: Account[], counts: Map<string, number>): Safe {
  const rows = accounts.map(
    (a) =>
      html`<tr><td><a href="/dashboard/accounts/${enc(a.id)}"><code>${a.id}</code></a></td><td>${a.name}</td><td>${a.plan}</td><td>${counts.get(a.id) ?? 0}</td><td>${fmtTime(a.createdAt)}</td></tr>`,
  );
  return html`<h1>Accounts</h1>
<div class="scroll"><table><thead><tr><th>id</th><th>name</th><th>plan</th><th>intents</th><th>created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">No accounts yet: <code>payforge accounts create --name N</code>.</td></tr>`}</tbody></table></div>`;
}

export interface AccountView {
  account: Account;
  keys: ApiKeyInfo[];
  endpoints: EndpointInfo[];
  csrf: string;
  /** A key just created: shown once. */
  newKey?: { key: string; mode: string } | null;
  /** A secret the operator asked to see, for one mode. */
  revealed?: { mode: string; secret: string; previousUntil: number | null } | null;
  error?: string | null;
  done?: string;
}

export function accountBody(v: AccountView): Safe {
  const a = v.account;
  const base = `/dashboard/accounts/${enc(a.id)}`;
  const keyRows = v.keys.map(
    (k) =>
      html`<tr data-key="${k.id}"><td><code>${k.id}</code></td><td>${k.mode}</td><td><code>pk_${k.mode}_…${k.last4}</code></td><td>${fmtTime(k.createdAt)}</td>
<td>${k.revokedAt === null ? 'active' : html`revoked ${fmtTime(k.revokedAt)}`}</td>
<td>${k.revokedAt === null ? html`<form class="inline" method="post" action="${base}/keys/${enc(k.id)}/revoke" data-confirm="Revoke this key? It stops working at once.">${csrfField(v.csrf)}<button class="danger">Revoke</button></form>` : null}</td></tr>`,
  );
  const endpointCards = (['test', 'live'] as const).map((mode) => {
    const e = v.endpoints.find((x) => x.mode === mode);
    const shown = v.revealed && v.revealed.mode === mode ? v.revealed : null;
    return html`<div class="card" data-mode="${mode}"><h2 style="margin-top:0">${mode} mode</h2>
${e ? html`<p>URL: <code>${e.url}</code> <span class="muted">(updated ${fmtTime(e.updatedAt)}${e.rotating ? ', previous secret still signing' : ''})</span></p>` : html`<p class="muted">No endpoint set.</p>`}
<form method="post" action="${base}/webhooks/${mode}">${csrfField(v.csrf)}<input type="url" name="url" required placeholder="https://example.com/webhooks" value="${e?.url ?? ''}" style="width:60%"> <button>${e ? 'Change URL' : 'Set URL'}</button></form>
${
  e
    ? html`<div style="margin-top:8px"><form class="inline" method="post" action="${base}/webhooks/${mode}/reveal">${csrfField(v.csrf)}<button>Reveal secret</button></form>
<form class="inline" method="post" action="${base}/webhooks/${mode}/rotate" data-confirm="Rotate the ${mode} signing secret?">${csrfField(v.csrf)}<button class="danger">Rotate secret</button></form></div>`
    : null
}
${shown ? html`<div class="secret">Signing secret: <code class="revealed-secret">${shown.secret}</code>${shown.previousUntil ? html`<br><span class="muted">The previous secret keeps signing until ${fmtTime(shown.previousUntil)}.</span>` : null}</div>` : null}
</div>`;
  });
  return html`<h1>Account ${a.name}</h1>${flash(v.done)}${errorBox(v.error)}
<dl class="card"><dt>id</dt><dd><code>${a.id}</code></dd><dt>plan</dt><dd>${a.plan}</dd><dt>created</dt><dd>${fmtTime(a.createdAt)}</dd>
<dt>see</dt><dd><a href="/dashboard/intents?account=${enc(a.id)}">intents</a> · <a href="/dashboard/deliveries?account=${enc(a.id)}">webhook deliveries</a> · live view: <a href="/dashboard/live?account=${enc(a.id)}&amp;mode=test">test</a>, <a href="/dashboard/live?account=${enc(a.id)}&amp;mode=live">live</a></dd></dl>
<h2>API keys</h2>
${v.newKey ? html`<div class="secret">New ${v.newKey.mode} key, shown once (it is stored only as a hash): <code class="new-key">${v.newKey.key}</code></div>` : null}
<div class="scroll"><table><thead><tr><th>id</th><th>mode</th><th>key</th><th>created</th><th>status</th><th></th></tr></thead>
<tbody>${keyRows.length ? keyRows : html`<tr><td colspan="6" class="muted">No keys.</td></tr>`}</tbody></table></div>
<div style="margin-top:8px"><form class="inline" method="post" action="${base}/keys">${csrfField(v.csrf)}<select name="mode"><option value="test">test</option><option value="live">live</option></select> <button>Create key</button></form></div>
<h2>Webhook endpoints</h2><div class="row">${endpointCards}</div>`;
}

export function intentsBody(rows: OperatorIntent[], hasMore: boolean, f: IntentFilter, accounts: Account[]): Safe {
  const opt = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const filterQs = (extra: Record<string, string>) => {
    const q = new URLSearchParams();
    if (f.state) q.set('state', f.state);
    if (f.accountId) q.set('account', f.accountId);
    if (f.mode) q.set('mode', f.mode);
    for (const [k, val] of Object.entries(extra)) q.set(k, val);
    return q.toString();
  };
  const trs = rows.map(
    (r) =>
      html`<tr><td><a href="/dashboard/intents/${enc(r.id)}"><code>${r.id}</code></a></td><td>${state(r.state)}</td><td>${r.amount} ${r.token}</td>
<td><code>${r.chain}</code></td><td>${r.livemode ? 'live' : 'test'}</td><td><a href="/dashboard/accounts/${enc(r.accountId)}"><code>${r.accountId}</code></a></td><td class="ref">${r.reference ?? ''}</td><td>${r.createdAt}</td></tr>`,
  );
  const last = rows[rows.length - 1];
  return html`<h1>Intents</h1>
<form method="get" action="/dashboard/intents" class="card">
<label>state <select name="state">${opt('', 'any', !f.state)}${INTENT_STATES.map((s) => opt(s, s, f.state === s))}</select></label>
<label>account <select name="account">${opt('', 'any', !f.accountId)}${accounts.map((a) => opt(a.id, `${a.name} (${a.id})`, f.accountId === a.id))}</select></label>
<label>mode <select name="mode">${opt('', 'any', !f.mode)}${opt('test', 'test', f.mode === 'test')}${opt('live', 'live', f.mode === 'live')}</select></label>
<button>Filter</button></form>
<div class="scroll"><table><thead><tr><th>id</th><th>state</th><th>amount</th><th>chain</th><th>mode</th><th>account</th><th>reference</th><th>created</th></tr></thead>
<tbody>${trs.length ? trs : html`<tr><td colspan="8" class="muted">No intents match.</td></tr>`}</tbody></table></div>
${hasMore && last ? html`<p><a href="/dashboard/intents?${filterQs({ starting_after: last.id })}">Older →</a></p>` : null}`;
}

/** `stream`: the page follows the intent's events there (its script moves the drawing and the timeline). */
export function intentBody(intent: IntentRecord, timeline: TimelineEvent[], pay: { url: string; qr: string } | null = null, stream: string | null = null): Safe {
  const w = toWire(intent);
  const fields: [string, unknown][] = [
    ['id', w.id],
    ['account', intent.accountId],
    ['mode', intent.mode],
    ['state', state(w.state)],
    ['amount', `${w.amount} ${w.token}`],
    ['chain', w.chain],
    ['token address', w.tokenAddress],
    ['requestor', w.requestor],
    ['fulfiller', w.fulfiller ?? '—'],
    ['reference', w.reference ?? '—'],
    ['tx signature', w.txSignature ?? '—'],
    ['created', w.createdAt],
    ['updated', w.updatedAt],
    ['expires', w.expiresAt],
    ['detected', w.detectedAt ?? '—'],
    ['confirmed', w.confirmedAt ?? '—'],
    ['finalized', w.finalizedAt ?? '—'],
    ['failure reason', w.failureReason ?? '—'],
    ['retry required', String(w.retryRequired)],
    ['pending at expiry', String(w.pendingAtExpiry)],
    ['refund of', w.refundOf ?? '—'],
    ['refunded by', w.refundedBy ?? '—'],
  ];
  const link = (id: string | null) => (id ? html`<a href="/dashboard/intents/${enc(id)}"><code>${id}</code></a>` : '—');
  const dl = fields.map(([k, val]) => {
    if (k === 'account') return html`<dt>${k}</dt><dd><a href="/dashboard/accounts/${enc(String(val))}"><code>${val}</code></a></dd>`;
    if (k === 'refund of') return html`<dt>${k}</dt><dd>${link(w.refundOf)}</dd>`;
    if (k === 'refunded by') return html`<dt>${k}</dt><dd>${link(w.refundedBy)}</dd>`;
    return html`<dt>${k}</dt><dd class="mono" data-field="${k}">${val}</dd>`;
  });
  const events = timeline.map(
    (e) =>
      html`<tr data-event="${e.id}"><td>${fmtTime(e.createdAt)}</td><td><code title="${eventSummary(e.type)}">${e.type}</code></td><td>${e.state ? state(e.state) : '—'}</td><td><code>${e.id}</code></td><td>${e.deliveries ? `${e.delivered}/${e.deliveries} delivered` : 'no delivery'}</td></tr>`,
  );
  return html`<h1>Intent <code>${w.id}</code></h1>
<div id="intent-live"${stream ? html` data-stream="${stream}" data-status="connecting"` : null}>
<div class="row"><div><dl class="card">${dl}</dl>
<h2>Metadata</h2><pre class="card mono metadata">${JSON.stringify(w.metadata, null, 2)}</pre></div>
<div>${pay ? html`<h2 style="margin-top:0">Pay link</h2><div class="card pay-link"><p><a href="${pay.url}" class="mono">${pay.url}</a></p><div class="pay-qr" aria-label="QR code of the pay link">${new Safe(pay.qr)}</div></div>` : null}
<h2>Lifecycle${stream ? html` <span class="live-status muted" style="font-size:13px;font-weight:400">connecting…</span>` : null}</h2>${machineSvg(w.state)}
<details><summary>Transitions (those from <b class="current-state">${w.state}</b> lit)</summary>${machineTable(w.state)}</details></div></div>
<h2>Event timeline</h2>
<div class="scroll"><table class="timeline"><thead><tr><th>at</th><th>event</th><th>state after</th><th>event id</th><th>webhooks</th></tr></thead>
<tbody>${events.length ? events : html`<tr class="empty"><td colspan="5" class="muted">No events.</td></tr>`}</tbody></table></div>
<p><a href="/dashboard/deliveries?account=${enc(intent.accountId)}">Webhook deliveries of this account →</a></p></div>`;
}

export function deliveriesBody(rows: OperatorDelivery[], hasMore: boolean, f: { status?: string; accountId?: string }, csrf: string, done?: string, error?: string | null): Safe {
  const trs = rows.map(
    (r) =>
      html`<tr><td><code>${r.id}</code></td><td>${r.createdAt}</td><td><a href="/dashboard/accounts/${enc(r.accountId)}"><code>${r.accountId}</code></a> ${r.mode}</td>
<td><code>${r.eventType ?? '?'}</code>${r.intentId ? html`<br><a href="/dashboard/intents/${enc(r.intentId)}"><code>${r.intentId}</code></a>` : null}</td>
<td><code>${r.url}</code></td><td>${r.status}</td><td>${r.attemptCount}</td><td>${r.responseStatus ?? '—'}</td><td>${r.lastError ?? ''}</td>
<td>${(r.status === 'pending' ? r.nextAttemptAt : (r.deliveredAt ?? r.failedAt)) ?? '—'}</td>
<td><form class="inline" method="post" action="/dashboard/deliveries/${enc(r.id)}/retry">${csrfField(csrf)}<button>Retry</button></form></td></tr>`,
  );
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.accountId) q.set('account', f.accountId);
  const last = rows[rows.length - 1];
  if (last) q.set('starting_after', last.id);
  const opt = (value: string, label: string) => html`<option value="${value}"${(f.status ?? '') === value ? html` selected` : null}>${label}</option>`;
  return html`<h1>Webhook deliveries</h1>${flash(done)}${errorBox(error)}
<form method="get" action="/dashboard/deliveries" class="card">${f.accountId ? html`<input type="hidden" name="account" value="${f.accountId}">account <code>${f.accountId}</code> · ` : null}
<label>status <select name="status">${opt('', 'any')}${opt('pending', 'pending')}${opt('delivered', 'delivered')}${opt('failed', 'failed')}</select></label> <button>Filter</button></form>
<div class="scroll"><table><thead><tr><th>id</th><th>created</th><th>account</th><th>event</th><th>url</th><th>status</th><th>attempts</th><th>HTTP</th><th>last error</th><th>next / done</th><th></th></tr></thead>
<tbody>${trs.length ? trs : html`<tr><td colspan="11" class="muted">No deliveries.</td></tr>`}</tbody></table></div>
${hasMore ? html`<p><a href="/dashboard/deliveries?${q.toString()}">Older →</a></p>` : null}`;
}
