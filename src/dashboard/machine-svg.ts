// The lifecycle machine drawn as inline SVG, generated from intentMachine itself (its states and
// transitions), so the picture never drifts from the code. Layout: states in columns by their
// longest distance from the initial state (back edges ignored), arrows as curves that bend to
// the left of their direction so A→B and B→A do not overlap. The current state is lit, and so
// are the arrows leaving it.
import { intentMachine } from '../../machines/intent.machine';
import { html, Safe } from './html';

export interface MachineTransition {
  from: string;
  event: string;
  /** Same as `from` for targetless transitions (they change context, not state). */
  to: string;
  guard: string | null;
}

export interface MachineGraph {
  initial: string;
  states: string[];
  finals: Set<string>;
  transitions: MachineTransition[];
}

function guardName(g: unknown): string | null {
  if (!g) return null;
  if (typeof g === 'string') return g;
  if (typeof g === 'object' && g !== null && 'type' in g && typeof (g as { type: unknown }).type === 'string') return (g as { type: string }).type;
  return 'guard';
}

export function machineGraph(): MachineGraph {
  const states = Object.keys(intentMachine.states);
  const finals = new Set<string>();
  const transitions: MachineTransition[] = [];
  for (const [key, node] of Object.entries(intentMachine.states)) {
    if (node.type === 'final') finals.add(key);
    for (const [event, defs] of node.transitions) {
      for (const t of defs) {
        const targets = t.target?.length ? t.target.map((n) => n.key) : [key];
        for (const to of targets) transitions.push({ from: key, event, to, guard: guardName(t.guard) });
      }
    }
  }
  return { initial: String(intentMachine.config.initial ?? states[0]), states, finals, transitions };
}

let cached: { graph: MachineGraph; pos: Map<string, { x: number; y: number }>; width: number; height: number } | null = null;

const W = 124;
const H = 34;
const COL = 210;
const ROW = 96;
const PAD = 36;

const GRID: Record<string, [number, number]> = {
  created: [0, 1],
  pending: [1, 1],
  confirmed: [2, 0],
  finalized: [3, 0],
  failed: [2, 1],
  cancelled: [0, 2],
  dropped: [1, 2],
  expired: [2, 2],
};

function layout() {
  if (cached) return cached;
  const graph = machineGraph();
  const out = new Map<string, string[]>();
  for (const s of graph.states) out.set(s, []);
  for (const t of graph.transitions) if (t.from !== t.to && !out.get(t.from)!.includes(t.to)) out.get(t.from)!.push(t.to);

  // DFS from the initial state: edges to a state on the current path are back edges.
  const forward = new Map<string, string[]>();
  const onPath = new Set<string>();
  const seen = new Set<string>();
  const order: string[] = [];
  const dfs = (s: string) => {
    seen.add(s);
    onPath.add(s);
    order.push(s);
    forward.set(s, []);
    for (const n of out.get(s)!) {
      if (onPath.has(n)) continue;
      forward.get(s)!.push(n);
      if (!seen.has(n)) dfs(n);
    }
    onPath.delete(s);
  };
  dfs(graph.initial);
  for (const s of graph.states) if (!seen.has(s)) dfs(s);

  // Longest path on the acyclic forward edges (iterate to a fixed point; the graph is tiny).
  const layer = new Map<string, number>(graph.states.map((s) => [s, 0]));
  for (let changed = true, guard = 0; changed && guard < 100; guard++) {
    changed = false;
    for (const [s, ns] of forward)
      for (const n of ns)
        if (layer.get(n)! < layer.get(s)! + 1) {
          layer.set(n, layer.get(s)! + 1);
          changed = true;
        }
  }
  // Known states sit on a hand-tuned grid (column, row) that reads left to right; a state the
  // grid does not know (the machine grew) goes below, in the column of its computed layer.
  const cells = new Map<string, [number, number]>();
  let extraRow = Math.max(...Object.values(GRID).map(([, r]) => r)) + 1;
  const used = new Set<string>();
  for (const s of order) {
    const hint = GRID[s];
    if (hint) cells.set(s, hint);
  }
  for (const c of cells.values()) used.add(c.join(','));
  for (const s of order) {
    if (cells.has(s)) continue;
    let col = layer.get(s)!;
    while (used.has(`${col},${extraRow}`)) col++;
    cells.set(s, [col, extraRow]);
    used.add(`${col},${extraRow}`);
    if (col > 3) extraRow++;
  }
  const maxCol = Math.max(...[...cells.values()].map(([c]) => c));
  const maxRow = Math.max(...[...cells.values()].map(([, r]) => r));
  const pos = new Map<string, { x: number; y: number }>();
  for (const [s, [c, r]] of cells) pos.set(s, { x: PAD + 30 + c * COL + W / 2, y: PAD + 20 + r * ROW + H / 2 });
  cached = { graph, pos, width: PAD * 2 + 30 + maxCol * COL + W, height: PAD * 2 + 20 + maxRow * ROW + H };
  return cached;
}

/** Where the segment from the box centre c toward p leaves the box. */
function boxExit(c: { x: number; y: number }, p: { x: number; y: number }) {
  const dx = p.x - c.x;
  const dy = p.y - c.y;
  const sx = dx === 0 ? Infinity : W / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : H / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return { x: c.x + dx * s, y: c.y + dy * s };
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/** How a state and an arrow look, lit or not: also what the intent page's script sets when the state moves. */
export const LOOK = {
  node: { fill: '#ffffff', stroke: '#4a5568', width: 1.3, weight: 500 },
  nodeLit: { fill: '#ffd54f', stroke: '#8a5a00', width: 2.5, weight: 700 },
  edge: { stroke: '#9aa3b1', width: 1.2, marker: 'url(#arrow)' },
  edgeLit: { stroke: '#b7791f', width: 2.2, marker: 'url(#arrow-lit)' },
} as const;

/**
 * The drawing. `current` is lit (one intent's page; null for none). With `counts` (the live
 * view) each state carries a badge with how many intents are in it, and every element the
 * page's script updates is named by data attributes (data-count-for, data-from/data-to).
 */
export function machineSvg(current: string | null, counts?: Partial<Record<string, number>>): Safe {
  const { graph, pos, width, height } = layout();
  const edges = new Map<string, { from: string; to: string; events: string[] }>();
  for (const t of graph.transitions) {
    const k = `${t.from}>${t.to}`;
    const e = edges.get(k) ?? { from: t.from, to: t.to, events: [] };
    e.events.push(t.guard ? `${t.event} [${t.guard}]` : t.event);
    edges.set(k, e);
  }

  const paths: Safe[] = [];
  for (const e of edges.values()) {
    const a = pos.get(e.from)!;
    const b = pos.get(e.to)!;
    const look = e.from === current ? LOOK.edgeLit : LOOK.edge;
    const stroke = look.stroke;
    const width_ = look.width;
    const marker = look.marker;
    let d: string;
    if (e.from === e.to) {
      // A loop above the box: a context-only change (DETECTED, EXPIRE while pending, reorg).
      const x0 = a.x - 18;
      const x1 = a.x + 18;
      const y = a.y - H / 2;
      d = `M ${r1(x0)} ${r1(y)} C ${r1(x0 - 8)} ${r1(y - 34)}, ${r1(x1 + 8)} ${r1(y - 34)}, ${r1(x1)} ${r1(y)}`;
    } else {
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      const bend = Math.min(110, 12 + len * 0.2);
      const ctrl = { x: (a.x + b.x) / 2 + (dy / len) * bend, y: (a.y + b.y) / 2 - (dx / len) * bend };
      const s = boxExit(a, ctrl);
      const t = boxExit(b, ctrl);
      d = `M ${r1(s.x)} ${r1(s.y)} Q ${r1(ctrl.x)} ${r1(ctrl.y)} ${r1(t.x)} ${r1(t.y)}`;
    }
    paths.push(
      html`<path class="edge" data-from="${e.from}" data-to="${e.to}" d="${d}" fill="none" stroke="${stroke}" stroke-width="${width_}" marker-end="${marker}"><title>${e.from} → ${e.to}: ${e.events.join(', ')}</title></path>`,
    );
  }

  const nodes = graph.states.map((s) => {
    const p = pos.get(s)!;
    const isCurrent = s === current;
    const look = isCurrent ? LOOK.nodeLit : LOOK.node;
    const fill = look.fill;
    const stroke = look.stroke;
    const inner = graph.finals.has(s)
      ? html`<rect x="${r1(p.x - W / 2 + 3)}" y="${r1(p.y - H / 2 + 3)}" width="${W - 6}" height="${H - 6}" rx="6" fill="none" stroke="${stroke}" stroke-width="0.8"/>`
      : null;
    const n = counts ? (counts[s] ?? 0) : null;
    const badge =
      n === null
        ? null
        : html`<circle cx="${r1(p.x + W / 2 - 4)}" cy="${r1(p.y - H / 2 + 2)}" r="12" fill="#1c2330"/><text class="count" data-count-for="${s}" x="${r1(p.x + W / 2 - 4)}" y="${r1(p.y - H / 2 + 6)}" text-anchor="middle" font-size="11" font-weight="700" fill="#fff">${n}</text>`;
    return html`<g class="state-node${isCurrent ? ' current' : ''}${n ? ' occupied' : ''}" data-state="${s}"><rect x="${r1(p.x - W / 2)}" y="${r1(p.y - H / 2)}" width="${W}" height="${H}" rx="8" fill="${fill}" stroke="${stroke}" stroke-width="${look.width}"/>${inner}<text x="${r1(p.x)}" y="${r1(p.y + 4.5)}" text-anchor="middle" font-size="13" font-weight="${look.weight}" fill="#1c2330">${s}</text>${badge}</g>`;
  });

  const init = pos.get(graph.initial)!;
  const start = html`<circle cx="${r1(init.x - W / 2 - 26)}" cy="${r1(init.y)}" r="5" fill="#1c2330"/><path class="edge" data-from="" data-to="${graph.initial}" d="M ${r1(init.x - W / 2 - 21)} ${r1(init.y)} L ${r1(init.x - W / 2 - 1)} ${r1(init.y)}" stroke="#1c2330" stroke-width="1.3" marker-end="url(#arrow)"/>`;

  return html`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${current === null ? 'Intent lifecycle' : `Intent lifecycle, current state ${current}`}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" style="max-width:100%;height:auto;background:#fff;border:1px solid #dde1e7">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#9aa3b1"/></marker><marker id="arrow-lit" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b7791f"/></marker></defs>
${start}${paths}${nodes}</svg>`;
}

/** The same machine as a table: every transition, those leaving the current state lit. */
export function machineTable(current: string): Safe {
  const { graph } = layout();
  const rows = graph.transitions.map(
    (t) =>
      html`<tr class="${t.from === current ? 'lit' : ''}" data-from="${t.from}"><td>${t.from}</td><td><code>${t.event}</code>${t.guard ? html` <span class="muted">[${t.guard}]</span>` : null}</td><td>${t.to === t.from ? html`<span class="muted">(stays)</span>` : t.to}</td></tr>`,
  );
  return html`<div class="scroll"><table><thead><tr><th>from</th><th>event</th><th>to</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
