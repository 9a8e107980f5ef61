// The live view (contract 9): one account and mode's intents on the lifecycle drawing, with a
// count per state, the newest intents and the event list, all moved by server-sent events from
// /dashboard/live/events as transitions commit. The server renders the snapshot; the script
// (inline under the page's CSP nonce, no external file) applies each event to it. The script
// builds nodes with textContent only, so no value from an event becomes markup.
import type { Account } from '../store/accounts';
import type { LiveEventRow, LiveSnapshot } from '../store/live-events';
import { INTENT_STATES, type Mode } from '../domain/intent';
import { formatAmount } from '../domain/money';
import { enc, fmtTime, html, type Safe } from './html';
import { machineSvg } from './machine-svg';
import { EVENT_SUMMARIES, eventSummary } from './event-summaries';

/** Rows kept in each table; the script trims to the same. */
export const LIVE_ROWS = 50;

export interface LiveView {
  accounts: Account[];
  account: Account | null;
  mode: Mode;
  snapshot: LiveSnapshot | null;
}

/** "created → pending", "pending (stays)" or "start → created": the same text the script writes. */
export function transitionText(from: string | null, to: string | null): string {
  if (to === null) return '—';
  if (from === to) return `${to} (stays)`;
  return `${from ?? 'start'} → ${to}`;
}

const state = (s: string) => html`<span class="state ${s}">${s}</span>`;
const intentLink = (id: string) => html`<a href="/dashboard/intents/${enc(id)}"><code>${id}</code></a>`;

function eventRow(e: LiveEventRow): Safe {
  return html`<tr data-seq="${e.seq}"><td>${fmtTime(e.createdAt)}</td><td><code title="${eventSummary(e.type)}">${e.type}</code></td><td>${e.intentId ? intentLink(e.intentId) : '—'}</td><td class="transition">${transitionText(e.fromState, e.state)}</td></tr>`;
}

export function liveBody(v: LiveView): Safe {
  const opt = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const picker = html`<form method="get" action="/dashboard/live" class="card">
<label>account <select name="account">${v.account ? null : opt('', 'choose…', true)}${v.accounts.map((a) => opt(a.id, `${a.name} (${a.id})`, v.account?.id === a.id))}</select></label>
<label>mode <select name="mode">${opt('test', 'test', v.mode === 'test')}${opt('live', 'live', v.mode === 'live')}</select></label>
<button>Watch</button></form>`;
  if (!v.account || !v.snapshot) {
    return html`<h1>Live view</h1>${picker}<p class="muted">Choose an account: the view shows its intents in one mode, and nothing of any other account.</p>`;
  }
  const { snapshot: snap, account: a } = v;
  const stream = `/dashboard/live/events?account=${enc(a.id)}&mode=${v.mode}&after=${snap.afterSeq}`;
  const countRows = INTENT_STATES.map((s) => html`<tr data-state="${s}"><td>${state(s)}</td><td class="n" data-count="${s}">${snap.counts[s] ?? 0}</td></tr>`);
  const events = [...snap.events].reverse().map(eventRow);
  const intents = snap.intents.map(
    (r) =>
      html`<tr data-intent="${r.id}" data-state="${r.state}"><td>${intentLink(r.id)}</td><td class="st">${state(r.state)}</td><td>${formatAmount(BigInt(r.amountBaseUnits), r.decimals)} ${r.token}</td><td><code>${r.chain}</code></td><td>${r.reference ?? ''}</td><td>${fmtTime(r.createdAt)}</td></tr>`,
  );
  return html`<h1>Live view</h1>${picker}
<div id="live" data-stream="${stream}" data-status="connecting" data-rows="${LIVE_ROWS}">
<p><code>${a.id}</code> (${a.name}), ${v.mode} mode: <span class="live-status">connecting…</span>
<span class="muted">Transitions appear as they commit; the newest is drawn in orange.</span></p>
<div class="row"><div style="flex:3 1 520px">${machineSvg(null, snap.counts)}</div>
<div style="flex:1 1 200px"><div class="scroll"><table class="counts"><thead><tr><th>state</th><th>intents</th></tr></thead><tbody>${countRows}</tbody></table></div></div></div>
<h2>Events</h2>
<div class="scroll"><table class="events"><thead><tr><th>at</th><th>event</th><th>intent</th><th>transition</th></tr></thead>
<tbody>${events.length ? events : html`<tr class="empty"><td colspan="4" class="muted">No events yet: create an intent, or move one with <code>POST /v1/test/intents/{id}/simulate</code> (test mode).</td></tr>`}</tbody></table></div>
<h2>Newest intents</h2>
<div class="scroll"><table class="intents"><thead><tr><th>id</th><th>state</th><th>amount</th><th>chain</th><th>reference</th><th>created</th></tr></thead>
<tbody>${intents.length ? intents : html`<tr class="empty"><td colspan="6" class="muted">No intents yet.</td></tr>`}</tbody></table></div>
</div>`;
}

// Runs in the browser. Kept as plain ES2017 with no dependencies; see LiveEventWire for `e`.
export const LIVE_JS = `
(function(){
var root=document.getElementById('live');if(!root||!window.EventSource)return;
var max=Number(root.getAttribute('data-rows'))||50;
var status=root.querySelector('.live-status');
var NAME=/^[a-z_]{1,40}$/,ID=/^[A-Za-z0-9_]{1,80}$/;
var SUMMARY=${JSON.stringify(EVENT_SUMMARIES)};
function setStatus(s,t){root.setAttribute('data-status',s);status.textContent=t;}
function typeCode(type){var c=el('code',null,type);if(Object.prototype.hasOwnProperty.call(SUMMARY,type))c.title=SUMMARY[type];return c;}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=String(text);return e;}
function td(child){var c=el('td');if(child!=null){if(typeof child==='string')c.textContent=child;else c.appendChild(child);}return c;}
function link(id){var a=el('a');a.href='/dashboard/intents/'+encodeURIComponent(id);a.appendChild(el('code',null,id));return a;}
function badge(s){return el('span','state '+s,s);}
function text(from,to){if(!to)return '\\u2014';if(from===to)return to+' (stays)';return (from||'start')+' \\u2192 '+to;}
function prepend(tbody,tr){var empty=tbody.querySelector('tr.empty');if(empty)empty.remove();tbody.insertBefore(tr,tbody.firstChild);while(tbody.rows.length>max)tbody.deleteRow(-1);}
function bump(s,d){
  if(!s||!NAME.test(s))return;
  var cells=root.querySelectorAll('[data-count="'+s+'"],[data-count-for="'+s+'"]');
  for(var i=0;i<cells.length;i++){var n=Math.max(0,(Number(cells[i].textContent)||0)+d);cells[i].textContent=String(n);}
  var g=root.querySelector('g.state-node[data-state="'+s+'"]');
  var c=root.querySelector('[data-count="'+s+'"]');
  if(g&&c)g.classList.toggle('occupied',Number(c.textContent)>0);
}
function light(from,to){
  var old=root.querySelectorAll('path.edge.last');for(var i=0;i<old.length;i++)old[i].classList.remove('last');
  if(!NAME.test(to)||(from&&!NAME.test(from)))return;
  var p=root.querySelector('path.edge[data-from="'+(from||'')+'"][data-to="'+to+'"]');
  if(!p)return;
  p.classList.add('last','hit');setTimeout(function(){p.classList.remove('hit');},1200);
}
function apply(e){
  if(e.to&&e.from!==e.to){bump(e.from,-1);bump(e.to,1);}
  if(e.to)light(e.from,e.to);
  var ev=el('tr','fresh');ev.setAttribute('data-seq',String(e.seq));
  ev.appendChild(td(new Date(e.at).toISOString()));ev.appendChild(td(typeCode(e.type)));
  ev.appendChild(td(e.intentId?link(e.intentId):'\\u2014'));var tc=td(text(e.from,e.to));tc.className='transition';ev.appendChild(tc);
  prepend(root.querySelector('table.events tbody'),ev);
  if(!e.intentId||!ID.test(e.intentId)||!e.to||!NAME.test(e.to))return;
  var tbody=root.querySelector('table.intents tbody');
  var row=tbody.querySelector('tr[data-intent="'+e.intentId+'"]');
  if(row){row.setAttribute('data-state',e.to);var st=row.querySelector('td.st');st.textContent='';st.appendChild(badge(e.to));return;}
  if(e.from)return;
  row=el('tr','fresh');row.setAttribute('data-intent',e.intentId);row.setAttribute('data-state',e.to);
  row.appendChild(td(link(e.intentId)));var s=td(badge(e.to));s.className='st';row.appendChild(s);
  row.appendChild(td((e.amount||'')+' '+(e.token||'')));row.appendChild(td(el('code',null,e.chain||'')));
  row.appendChild(td(e.reference||''));row.appendChild(td(new Date(e.at).toISOString()));
  prepend(tbody,row);
}
var es=new EventSource(root.getAttribute('data-stream'));
es.onopen=function(){setStatus('live','live');};
es.onerror=function(){if(es.readyState===2)setStatus('closed','disconnected: reload the page (or log in again)');else setStatus('reconnecting','reconnecting\\u2026');};
es.addEventListener('intent',function(m){var e;try{e=JSON.parse(m.data);}catch(x){return;}apply(e);});
})();
`;
