// Shared by the live viewer page and report.html (inlined into both, so each stays one file).
// Step records are the JSON of protocols.records.StepRecord; times are the run's monotonic clock.

const TIMELINE_ROWS = [
  ["agent", "Agent"], ["act", "VM act"], ["screenshot", "Screenshot"], ["tree", "A11y tree"],
  ["summarizer", "Summarizer"],
];

// What each actor did when: one row per actor, one bar per step. The Summarizer's bar for
// step t sits under the Agent's bar for step t+1 when the two overlap, as they should.
function timelineBars(steps) {
  const bars = [];
  for (const r of steps) {
    const t = r.timings || {};
    const s0 = r.started_at || 0;
    const agent = t.agent || 0, act = t.act || 0;
    bars.push({row: "agent", step: r.step, from: s0, to: s0 + agent});
    if (act) bars.push({row: "act", step: r.step, from: s0 + agent, to: s0 + agent + act});
    const o = s0 + agent + act;
    if (t.screenshot) bars.push({row: "screenshot", step: r.step, from: o, to: o + t.screenshot});
    if (t.tree) bars.push({row: "tree", step: r.step, from: o, to: o + t.tree});
    const s = r.summary;
    if (s && s.answered_at) bars.push({row: "summarizer", step: r.step, from: s.asked_at, to: s.answered_at});
  }
  return bars;
}

function renderTimeline(el, steps, startedAt) {
  el.replaceChildren();
  const bars = timelineBars(steps);
  if (!bars.length) { el.textContent = "no steps yet"; return; }
  const base = Math.min(startedAt || Infinity, ...bars.map(b => b.from));
  const span = Math.max(...bars.map(b => b.to)) - base || 1;
  for (const [row, label] of TIMELINE_ROWS) {
    const line = document.createElement("div");
    line.className = "tl-row";
    const name = document.createElement("span");
    name.className = "tl-label";
    name.textContent = label;
    const track = document.createElement("div");
    track.className = "tl-track";
    for (const b of bars.filter(b => b.row === row)) {
      const bar = document.createElement("div");
      bar.className = "tl-bar tl-" + row;
      bar.dataset.row = row;
      bar.dataset.step = b.step;
      bar.style.left = (100 * (b.from - base) / span) + "%";
      bar.style.width = Math.max(0.3, 100 * (b.to - b.from) / span) + "%";
      bar.title = `step ${b.step} ${label}: ${(b.from - base).toFixed(3)}–${(b.to - base).toFixed(3)} s`;
      bar.textContent = b.step;
      track.appendChild(bar);
    }
    line.append(name, track);
    el.appendChild(line);
  }
  el.appendChild(timelineAxis(span));
}

// Round tick steps (1, 2 or 5 times a power of ten), four to nine labels across the span.
function timelineTicks(span) {
  const raw = span / 8, power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * power).find(s => s >= raw);
  const ticks = [];
  for (let t = 0; t <= span + 1e-9; t += step) ticks.push(t);
  return {ticks, decimals: Math.max(0, -Math.floor(Math.log10(step)))};
}

function timelineAxis(span) {
  const axis = document.createElement("div");
  axis.className = "tl-axis";
  const {ticks, decimals} = timelineTicks(span);
  for (const t of ticks) {
    const tick = document.createElement("span");
    tick.className = "tl-tick";
    tick.style.left = (100 * t / span) + "%";
    tick.textContent = t.toFixed(decimals) + " s";
    axis.appendChild(tick);
  }
  return axis;
}

function describeAction(a) {
  if (!a) return "";
  const t = a.target;
  const name = t ? (t.name || t.node_id || "") : "";
  const where = name ? ` '${name}'` : a.point ? ` (${a.point.x}, ${a.point.y})` : "";
  switch (a.type) {
    case "type": return `type "${a.text}"` + (name ? ` into '${name}'` : "");
    case "key": return "key " + [...(a.modifiers || []), a.key].join("+");
    case "hotkey": return "hotkey " + a.keys.join("+");
    case "scroll": return `scroll ${a.direction}` + where;
    case "answer": return `answer "${a.text}"`;
    case "fail": return "fail" + (a.reason ? `: ${a.reason}` : "");
    default: return a.type + where;
  }
}

const TIMELINE_CSS = `
.tl-row { display: flex; align-items: center; height: 22px; margin-right: 12px; }
.tl-label { width: 92px; font-size: 12px; color: #444; flex: none; }
.tl-track { position: relative; flex: 1; height: 18px; background: #f3f3f3; }
.tl-bar { position: absolute; top: 1px; height: 16px; font-size: 10px; color: #fff; overflow: hidden;
          border-radius: 2px; text-align: center; opacity: .85; }
.tl-agent { background: #3b6fd1; } .tl-act { background: #d1813b; } .tl-screenshot { background: #3bab6f; }
.tl-tree { background: #8a5bd1; } .tl-summarizer { background: #c94b6d; }
.tl-axis { position: relative; margin: 0 12px 0 92px; height: 16px; font-size: 11px; color: #666;
           border-top: 1px solid #bbb; }
.tl-tick { position: absolute; top: 0; transform: translateX(-50%); padding-top: 2px; white-space: nowrap; }
.tl-tick::before { content: ""; position: absolute; left: 50%; top: -1px; height: 4px; border-left: 1px solid #999; }
`;
