// One intent's page, live: the page follows the intent's own committed events (the live view's
// stream with ?intent=) and, for each, adds the timeline row and moves the lit state on the
// drawing, the state field and the transitions table. Inline under the page's CSP nonce; nodes
// are built with textContent only. Colours come from machine-svg's LOOK, so a state lit by the
// script looks exactly like one lit by the server.
import { enc } from './html';
import { LOOK } from './machine-svg';
import { EVENT_SUMMARIES } from './event-summaries';

/** Where the intent page's script listens: its account and mode, this intent only, after `afterSeq`. */
export const intentStreamUrl = (i: { id: string; accountId: string; mode: string }, afterSeq: number): string =>
  `/dashboard/live/events?account=${enc(i.accountId)}&mode=${enc(i.mode)}&intent=${enc(i.id)}&after=${afterSeq}`;

export const INTENT_LIVE_JS = `
(function(){
var root=document.getElementById('intent-live');if(!root||!root.getAttribute('data-stream')||!window.EventSource)return;
var L=${JSON.stringify(LOOK)};
var status=root.querySelector('.live-status');
var NAME=/^[a-z_]{1,40}$/,ID=/^[A-Za-z0-9_]{1,80}$/;
var SUMMARY=${JSON.stringify(EVENT_SUMMARIES)};
function setStatus(s,t){root.setAttribute('data-status',s);if(status)status.textContent=t;}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=String(text);return e;}
function td(child){var c=el('td');if(typeof child==='string')c.textContent=child;else c.appendChild(child);return c;}
function badge(s){return el('span','state '+s,s);}
function setCurrent(state){
  var gs=root.querySelectorAll('g.state-node');
  for(var i=0;i<gs.length;i++){
    var on=gs[i].getAttribute('data-state')===state,look=on?L.nodeLit:L.node,rects=gs[i].querySelectorAll('rect');
    gs[i].classList.toggle('current',on);
    for(var j=0;j<rects.length;j++)rects[j].setAttribute('stroke',look.stroke);
    if(rects[0]){rects[0].setAttribute('fill',look.fill);rects[0].setAttribute('stroke-width',String(look.width));}
    var t=gs[i].querySelector('text');if(t)t.setAttribute('font-weight',String(look.weight));
  }
  var ps=root.querySelectorAll('path.edge');
  for(var k=0;k<ps.length;k++){var from=ps[k].getAttribute('data-from');if(!from)continue;var lk=from===state?L.edgeLit:L.edge;
    ps[k].setAttribute('stroke',lk.stroke);ps[k].setAttribute('stroke-width',String(lk.width));ps[k].setAttribute('marker-end',lk.marker);}
  var trs=root.querySelectorAll('tr[data-from]');for(var m=0;m<trs.length;m++)trs[m].classList.toggle('lit',trs[m].getAttribute('data-from')===state);
  var b=root.querySelector('b.current-state');if(b)b.textContent=state;
  var dd=root.querySelector('dd[data-field="state"]');if(dd){dd.textContent='';dd.appendChild(badge(state));}
  var svg=root.querySelector('svg[role=img]');if(svg)svg.setAttribute('aria-label','Intent lifecycle, current state '+state);
}
function apply(e){
  if(!e.id||!ID.test(e.id)||root.querySelector('tr[data-event="'+e.id+'"]'))return;
  var tbody=root.querySelector('table.timeline tbody');
  var empty=tbody.querySelector('tr.empty');if(empty)empty.remove();
  var tr=el('tr','fresh');tr.setAttribute('data-event',e.id);
  tr.appendChild(td(new Date(e.at).toISOString()));var code=el('code',null,e.type);if(Object.prototype.hasOwnProperty.call(SUMMARY,e.type))code.title=SUMMARY[e.type];tr.appendChild(td(code));
  tr.appendChild(e.to&&NAME.test(e.to)?td(badge(e.to)):td('\\u2014'));tr.appendChild(td(el('code',null,e.id)));tr.appendChild(td('\\u2014'));
  tbody.appendChild(tr);
  if(e.to&&NAME.test(e.to))setCurrent(e.to);
}
var es=new EventSource(root.getAttribute('data-stream'));
es.onopen=function(){setStatus('live','live');};
es.onerror=function(){if(es.readyState===2)setStatus('closed','not live: reload the page');else setStatus('reconnecting','reconnecting\\u2026');};
es.addEventListener('intent',function(m){var e;try{e=JSON.parse(m.data);}catch(x){return;}apply(e);});
})();
`;
