// The dashboard's payments page (contract section 11): every transfer found on chain, across
// accounts, newest first, with its status and the reason it did not pay an intent.
import { PAYMENT_STATUSES, type PaymentStatus } from '../domain/payment';
import type { OperatorPayment } from '../intents/list-payments';
import { enc, html, type Safe } from './html';

/** What each reason means to an operator deciding what to do with the money. */
const REASON_TEXT: ReadonlyMap<string, string> = new Map([
  ['intent_closed', 'arrived after the intent closed: refund it (the intent shows latePayment)'],
  ['amount_mismatch', 'under- or overpaid: no intent moved'],
  ['ambiguous', 'several open intents match: a submit by txSignature settles which'],
  ['duplicate', 'second payment for an intent already paid: the payer is owed it back'],
  ['no_open_intent', 'no open intent for this sender, token and amount'],
  ['sanctions_match', 'the sender is on a sanctions list: no intent moved; handle the funds as your compliance rules say'],
]);

export function paymentsBody(rows: OperatorPayment[], hasMore: boolean, status: PaymentStatus | undefined): Safe {
  const opt = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const trs = rows.map(
    (p) =>
      html`<tr data-payment="${p.id}"><td><code>${p.id}</code></td><td><span class="state ${p.status}">${p.status}</span></td>
<td class="reason">${p.reason === null ? '' : html`<b>${p.reason}</b><br><span class="muted">${REASON_TEXT.get(p.reason) ?? ''}</span>`}</td>
<td>${p.amount} ${p.token}</td><td><code>${p.chain}</code></td>
<td>${p.intentId ? html`<a href="/dashboard/intents/${enc(p.intentId)}"><code>${p.intentId}</code></a>` : '—'}</td>
<td><code>${p.from}</code></td><td><code>${p.txSignature}</code></td><td><a href="/dashboard/accounts/${enc(p.accountId)}"><code>${p.accountId}</code></a> ${p.livemode ? 'live' : 'test'}</td><td>${p.detectedAt}</td></tr>`,
  );
  const last = rows[rows.length - 1];
  const qs = (after: string) => new URLSearchParams({ ...(status ? { status } : {}), starting_after: after }).toString();
  return html`<h1>Payments found on chain</h1>
<p class="muted">Every transfer to a watched requestor, whoever sent it: matched to an intent, late, or unmatched with its reason.</p>
<form method="get" action="/dashboard/payments" class="card">
<label>status <select name="status">${opt('', 'any', !status)}${PAYMENT_STATUSES.map((s) => opt(s, s, status === s))}</select></label>
<button>Filter</button></form>
<div class="scroll"><table><thead><tr><th>id</th><th>status</th><th>reason</th><th>amount</th><th>chain</th><th>intent</th><th>from</th><th>transaction</th><th>account</th><th>detected</th></tr></thead>
<tbody>${trs.length ? trs : html`<tr><td colspan="10" class="muted">No payments found yet.</td></tr>`}</tbody></table></div>
${hasMore && last ? html`<p><a href="/dashboard/payments?${qs(last.id)}">Older →</a></p>` : null}`;
}
