// One step of an episode, as the viewer page shows it: the action drawn on the screen it was
// taken on, and panels for the accessibility tree the agent saw, the step's model calls and
// its errors, and the episode's own model calls. Inlined into page.html. Observations and calls
// are fetched when first needed (`stepFile`); a step's target is found in its tree when the
// action names a node but carries no box (a node id, or a role and name). It uses the page's
// `el` and `query`.

const SVG_NS = "http://www.w3.org/2000/svg";

// An action's target as a box in screen pixels: its own box, else the node of the tree it
// names (by id, else by role and name). {box: [x, y, w, h], node: id | null} or null.
function targetBox(action, tree) {
  const t = action && action.target;
  if (!t) return null;
  if (t.bbox) return {box: boxOf(t.bbox), node: t.node_id || null};
  if (!tree) return null;
  const nodes = treeNodes(tree);
  const node = (t.node_id && nodes.find(n => n.node_id === t.node_id))
    || (t.name && nodes.find(n => n.name === t.name && (!t.role || n.role === t.role)));
  if (!node) return null;
  return {box: node.bbox ? boxOf(node.bbox) : null, node: node.node_id};
}

// What the step's tree says of the action's target, in words: the node it found and where, or
// that the named node is in no tree the agent saw (a stale id, a hallucinated one).
function targetWords(action, tree) {
  const t = action && action.target;
  if (!t || t.bbox || !tree) return "";
  const found = targetBox(action, tree);
  const named = t.node_id ? `node ${t.node_id}` : `${t.role || "element"} '${t.name}'`;
  if (!found) return `${named} is not in the tree the agent saw`;
  const node = treeNodes(tree).find(n => n.node_id === found.node);
  const where = found.box ? ` at (${found.box.map(Math.round).slice(0, 2).join(", ")}), `
    + `${Math.round(found.box[2])}×${Math.round(found.box[3])}` : ", with no box in the tree";
  return nodeLine(node) + where;
}

function boxOf(b) { return Array.isArray(b) ? b : [b.x, b.y, b.width, b.height]; }

function treeNodes(tree) {
  const out = [], stack = [tree];
  while (stack.length) {
    const n = stack.pop();
    out.push(n);
    for (let i = (n.children || []).length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}

// Draws an action on a screenshot: the target's box, the click point (the box's centre when the
// action has no point: where a click on the element lands), the typed text beside the field it
// went into (right of it, else above, else below), never over it.
// Coordinates are the screen's pixels (the episode's viewport, else the image's own size).
function drawAction(svg, action, size, tree) {
  svg.replaceChildren();
  if (!action || !size) return;
  const [w, h] = size;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const add = (tag, cls, attrs) => {
    const e = document.createElementNS(SVG_NS, tag);
    e.setAttribute("class", cls);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
    return e;
  };
  const px = (p) => p.unit === "norm" ? [p.x * w, p.y * h] : [p.x, p.y];
  const target = targetBox(action, tree);
  const box = target && target.box;
  if (box) {
    const [x, y, bw, bh] = box;
    const rect = add("rect", "box", {x, y, width: bw, height: bh});
    rect.dataset.node = target.node || "";
  }
  const points = [action.point, action.end].filter(Boolean).map(px);
  if (!points.length && box && POINTED.has(action.type)) points.push([box[0] + box[2] / 2, box[1] + box[3] / 2]);
  for (const [x, y] of points) add("circle", "point", {cx: x, cy: y, r: Math.max(6, w / 120)});
  if (action.type === "type" || action.type === "answer") {
    const fontSize = Math.max(10, h / 22);
    const label = `⌨ "${action.text}"`;
    const width = label.length * fontSize * 0.6;
    const [x, y] = typedPlace(box || (points[0] ? [points[0][0], points[0][1], 0, 0] : null), width, fontSize, w, h);
    add("text", "typed", {x, y, "font-size": fontSize}).textContent = label;
  }
}

const POINTED = new Set(["click", "double_click", "triple_click", "right_click", "move", "drag", "scroll"]);

// Where typed text goes: the baseline-left corner of a label of `width` x `fontSize` that does
// not cover `box` (the field typed into): right of it, else above, else below, else inside the top.
function typedPlace(box, width, fontSize, w, h) {
  if (!box) return [w * 0.05, h * 0.1];
  const [x, y, bw, bh] = box;
  const gap = fontSize * 0.4;
  const middle = Math.min(Math.max(y + bh / 2 + fontSize / 3, fontSize), h - gap);
  if (x + bw + gap + width <= w) return [x + bw + gap, middle];
  const left = Math.min(Math.max(0, x), Math.max(0, w - width));
  if (y - gap - fontSize >= 0) return [left, y - gap];
  if (y + bh + gap + fontSize <= h) return [left, y + bh + gap + fontSize];
  return [left, Math.min(h - gap, y + fontSize)];
}

// ---- the files of a step: observation and model calls, fetched once -----------------------

const stepFileCache = new Map();

// {observation} or {calls}, or {error}: what the server says about a step's file. A running
// episode's errors are not kept (the file may not be written yet), nor its calls (a step's
// change summary, and the classifier's calls about the episode, come after it).
function stepFile(c, kind, step) {
  const url = `${c.files[kind]}/${step}${query}`;
  if (!stepFileCache.has(url)) {
    const answer = fetch(url).then(r => r.ok ? r.json() : {error: `no ${kind === "obs" ? "observation" : "calls"} `
                                                                    + `recorded for step ${step}`})
      .catch(e => ({error: String(e)}));
    stepFileCache.set(url, answer);
    answer.then(a => { if (c.status === "running" && (a.error || kind === "calls")) stepFileCache.delete(url); });
  }
  return stepFileCache.get(url);
}

// ---- panels -------------------------------------------------------------------------------

const panelState = {tree: false, calls: false, error: null, search: "", "episode-calls": false};  // null: open when there is an error

function panel(name, title, open) {
  const d = document.createElement("details");
  d.className = "panel panel-" + name;
  d.dataset.panel = name;
  d.open = open;
  const s = document.createElement("summary");
  s.textContent = title;
  d.append(s);
  d.addEventListener("toggle", () => { panelState[name] = d.open; });
  return d;
}

// The accessibility tree the agent saw before step `s`: collapsible, searchable, the action's
// target marked and shown (its ancestors open). Hovering a node draws its box on `stage`.
function treePanel(c, s, stage) {
  const d = panel("tree", "accessibility tree", panelState.tree);
  const body = el("div", "tree-body", "loading…");
  d.append(body);
  stepFile(c, "obs", s.step).then(answer => {
    if (answer.error) { body.textContent = answer.error; return; }
    const o = answer.observation;
    if (!o.tree) { body.textContent = "no tree in this observation" + (o.partial ? ` (missing: ${o.partial.join(", ")})` : ""); return; }
    const target = targetBox(s.action, o.tree);
    const head = el("div", "tree-head");
    const search = document.createElement("input");
    search.type = "search";
    search.placeholder = "search role, name, text or id";
    search.value = panelState.search;
    const found = el("span", "tree-found");
    head.append(search, found);
    for (const [label, value] of [["url", o.url], ["window", o.window_title], ["app", o.app_name],
                                  ["focused", o.focused_element]]) {
      if (value) head.append(el("span", "tree-field", `${label}: ${value}`));
    }
    const root = treeNode(o.tree, 0, target ? target.node : null, stage);
    markReference(root, s.reference, o.tree);
    body.replaceChildren(head, root);
    const filter = () => {
      panelState.search = search.value;
      found.textContent = searchTree(root, search.value.trim().toLowerCase());
    };
    search.addEventListener("input", filter);
    if (search.value) filter();
    const marked = root.querySelector(".tree-line.target");
    if (marked && d.open) marked.scrollIntoView({block: "nearest"});
  });
  return d;
}

// A static benchmark's step carries the recorded action it is scored against: its node is marked
// beside the chosen one (the tree is the page's candidates), its ancestors open.
function markReference(root, reference, tree) {
  const wanted = targetBox(reference, tree);
  const line = wanted && wanted.node && [...root.querySelectorAll(".tree-line")].find(l => l.dataset.node === wanted.node);
  if (!line) return;
  line.classList.add("reference");
  for (let d = line.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
}

function nodeLine(n) {
  return `[${n.node_id}] ${n.role}` + (n.name ? ` "${n.name}"` : "") + (n.text && n.text !== n.name ? ` = ${n.text}` : "");
}

function treeNode(n, depth, targetId, stage) {
  const line = el("span", "tree-line" + (n.node_id === targetId ? " target" : ""), nodeLine(n));
  line.dataset.node = n.node_id;
  if (n.bbox) {
    line.addEventListener("mouseenter", () => hoverBox(stage, boxOf(n.bbox)));
    line.addEventListener("mouseleave", () => hoverBox(stage, null));
  }
  const children = n.children || [];
  if (!children.length) {
    const leaf = el("div", "tree-node");
    leaf.append(line);
    return leaf;
  }
  const d = document.createElement("details");
  d.className = "tree-node";
  d.open = depth < 2;
  const s = document.createElement("summary");
  s.append(line);
  d.append(s, ...children.map(child => treeNode(child, depth + 1, targetId, stage)));
  if (targetId && d.querySelector(`.tree-line.target`)) d.open = true;
  return d;
}

// Shows only the nodes whose line holds `query` and their ancestors (all of them again for "");
// returns what it found, in words.
function searchTree(root, query) {
  const lines = [...root.querySelectorAll(".tree-line")];
  let hits = 0;
  for (const line of lines) line.classList.toggle("match", !!query && line.textContent.toLowerCase().includes(query));
  const visit = (node) => {
    const line = node.querySelector(":scope > .tree-line, :scope > summary > .tree-line");
    const own = line.classList.contains("match");
    let any = own;
    for (const child of node.querySelectorAll(":scope > .tree-node")) any = visit(child) || any;
    node.hidden = !!query && !any;
    if (query && any && node.tagName === "DETAILS") node.open = true;
    if (own) hits++;
    return any;
  };
  visit(root);
  return query ? `${hits} of ${lines.length} nodes match` : `${lines.length} nodes`;
}

function hoverBox(stage, box) {
  const svg = stage && stage.querySelector("svg");
  if (!svg) return;
  const old = svg.querySelector(".hover");
  if (old) old.remove();
  if (!box) return;
  const rect = document.createElementNS(SVG_NS, "rect");
  rect.setAttribute("class", "hover");
  const [x, y, width, height] = box;
  for (const [k, v] of Object.entries({x, y, width, height})) rect.setAttribute(k, v);
  svg.appendChild(rect);
}

// The model calls of step `s` (agent and summarizer): each request's messages (images named by
// the file that holds them, shown small), the reply, tokens, cost, latency, retries. At the last
// step of a finished episode (`s` null: it ended before its first step), also the calls of the
// decision that failed after it (the agent's own error, or its model service's). The episode's
// own calls (the classifier's) are in `episodeCallsPanel`.
function callsPanel(c, s) {
  const d = panel("calls", "model calls", panelState.calls);
  const body = el("div", "calls-body", "loading…");
  d.append(body);
  const parts = [...(s ? [[s.step, ""]] : []), ...episodeEndCalls(c, s)];
  Promise.all(parts.map(([step]) => stepFile(c, "calls", step))).then(answers => {
    const broken = answers.find(answer => answer.error);
    if (broken) { body.textContent = broken.error; return; }
    const shown = [];
    answers.forEach((answer, i) => {
      if (parts[i][1] && answer.calls.length) shown.push(el("div", "call-error", parts[i][1]));
      shown.push(...answer.calls.map(call => callView(c, call)));
    });
    const count = answers.reduce((n, answer) => n + answer.calls.length, 0);
    if (!count) { body.textContent = "no model calls recorded for this step (a scripted agent makes none)"; return; }
    d.querySelector("summary").textContent = `model calls (${count})`;
    body.replaceChildren(...shown);
  });
  return d;
}

// [step, heading] of the calls of a decision that ended the episode (after its last step), when
// `s` is the last step of a finished episode (or it has none); it may hold no call.
function episodeEndCalls(c, s) {
  const last = c.steps[c.steps.length - 1];
  if (!c.result || (s || null) !== (last || null)) return [];
  const next = last ? last.step + 1 : 1;
  return [[next, `step ${next}: the decision that failed (no action was taken)`]];
}

// The model calls about the episode as a whole, tied to no step (recorded as step 0): the error
// classifier's judgement of how it failed. Shown beside the verdict they explain, once there are any.
function episodeCallsPanel(c) {
  const d = panel("episode-calls", "model calls about the episode", panelState["episode-calls"]);
  d.hidden = true;
  const body = el("div", "calls-body");
  d.append(body);
  stepFile(c, "calls", 0).then(answer => {
    if (answer.error) body.textContent = answer.error;
    else if (answer.calls.length) body.replaceChildren(...answer.calls.map(call => callView(c, call)));
    else return;
    d.querySelector("summary").textContent = `model calls about the episode (${answer.error ? "unreadable" : answer.calls.length})`;
    d.hidden = false;
  });
  return d;
}

function callView(c, call) {
  const box = el("div", "call");
  const cost = call.cost ? ` · $${call.cost.toFixed(4)}` : "";
  box.append(el("div", "call-head", `${call.role || "model"} · ${(call.latency || 0).toFixed(2)} s · `
    + `${call.input_tokens || 0} in / ${call.output_tokens || 0} out tokens${cost}`
    + ((call.retries || []).length ? ` · retried: ${call.retries.join("; ")}` : "")));
  for (const m of call.messages || []) {
    const parts = m.content === undefined ? [m] : contentParts(m.content);  // a Responses API item is its own part
    const shown = parts.map(part => partView(c, part));
    let message;
    if (m.role === "system") {  // the same long instructions at every call: folded
      message = document.createElement("details");
      message.className = "message";
      const head = document.createElement("summary");
      head.append(el("span", "who", `system prompt (${parts.map(p => p.text || "").join("").length} characters)`));
      message.append(head, ...shown);
    } else {
      message = el("div", "message");
      message.append(el("span", "who", (m.role || m.type || "?") + ": "), ...shown);
    }
    box.append(message);
  }
  if (call.error) box.append(el("div", "call-error", "no answer: " + call.error));
  else box.append(el("div", "who", "reply:"), el("pre", "reply", call.reply));
  if (call.rejected) box.append(el("div", "call-error", "sent back: " + call.rejected));
  if (call.restarted) box.append(el("div", "who", "restarted: " + call.restarted));
  if (call.gave_up) box.append(el("div", "call-error", "gave up: the request got no usable answer"));
  return box;
}

function contentParts(content) {
  return typeof content === "string" ? [{type: "text", text: content}] : (content || []);
}

// One part of a message in any API's shape: text, a picture, a computer-use tool's result
// (Anthropic's tool_result, OpenAI's computer_call_output) with the picture it carried, else its JSON.
function partView(c, part) {
  if (part.type === "text" || part.type === "input_text") return textPart(part.text);
  if (part.type === "image") return imagePart(c, part);
  if (part.type === "tool_result" || part.type === "computer_call_output") {
    const box = el("div", "tool-result");
    const inner = part.type === "tool_result" ? contentParts(part.content) : [part.output || {}];
    box.append(el("span", "who", `${part.is_error ? "tool error" : "tool result"}: `), ...inner.map(p => partView(c, p)));
    return box;
  }
  return el("pre", "", JSON.stringify(part));
}

// A screenshot (step-NNN.png) or a picture the agent was shown (agent-NNN.png: set-of-marks, scaled).
// A message's text: a block when it has lines, inline when it is a label ("Before:") beside an image.
function textPart(text) {
  return text.includes("\n") || text.length > 80 ? el("pre", "", text) : el("span", "label-part", text + " ");
}

function imagePart(c, part) {
  const file = part.file && /^(step|agent)-(\d+)\.png$/.exec(part.file);
  if (!file) return el("span", "image-ref", `[image ${part.sha256 ? part.sha256.slice(0, 12) : ""}, ${part.bytes || "?"} bytes]`);
  const img = document.createElement("img");
  img.className = "image-ref";
  img.alt = img.title = part.file;
  img.src = `${file[1] === "step" ? c.files.shot : c.files.seen}/${parseInt(file[2], 10)}${query}`;
  return img;
}

// What went wrong: the step's own error, and the episode's when it ended on one (its kind,
// reason and traceback: where the agent's own code failed).
function errorPanel(c, s) {
  const r = c.result || {};
  const episodeError = r.traceback || (r.error_kind && r.error_kind !== "none");
  const has = !!(s && s.error) || !!episodeError;
  const d = panel("error", has ? "error" : "error (none)", panelState.error === null ? has : panelState.error);
  if (s && s.error) d.append(el("div", "step-error", `step ${s.step}: ${s.error}`));
  if (episodeError) d.append(el("div", "episode-error", `episode ended (${r.error_kind} error): ${r.reason || ""}`));
  if (r.traceback) d.append(el("pre", "traceback", r.traceback));
  if (!has) d.append(el("div", "", "no error at this step"));
  return d;
}

const STEP_CSS = `
.overlay .box { fill: rgba(59, 111, 209, .15); stroke: #3b6fd1; stroke-width: 3; vector-effect: non-scaling-stroke; }
.overlay .hover { fill: rgba(224, 164, 43, .2); stroke: #e0a42b; stroke-width: 2; vector-effect: non-scaling-stroke; }
.overlay .point { fill: #e0412b; stroke: #fff; stroke-width: 2; vector-effect: non-scaling-stroke; }
.overlay .typed { font-family: system-ui, sans-serif; font-weight: bold; fill: #b3261e; stroke: #fff; stroke-width: 4;
                  paint-order: stroke; vector-effect: non-scaling-stroke; }
.panel { border: 1px solid #ddd; border-radius: 4px; margin: 6px 0; padding: 2px 8px; }
.panel > summary { cursor: pointer; font-weight: 600; padding: 3px 0; }
.panel-error[open] { border-color: #e7b4ae; }
.tree-body, .calls-body { max-height: 26em; overflow: auto; font-size: 12px; }
.tree-head { position: sticky; top: 0; background: #fff; padding: 3px 0; display: flex; gap: 10px; flex-wrap: wrap;
             align-items: center; }
.tree-head input { width: 16em; }
.tree-found, .tree-field { color: #666; }
.tree-node { margin-left: 14px; }
div.tree-node { margin-left: 28px; }
.tree-node > summary { cursor: pointer; }
.tree-line { font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.tree-line.target { background: #3b6fd1; color: #fff; padding: 0 3px; border-radius: 2px; }
.tree-line.reference { outline: 2px solid #1c7c32; }
.tree-line.reference::after { content: " ← reference"; color: #1c7c32; }
.tree-line.match { background: #ffe48a; }
.tree-line.target.match { outline: 2px solid #ffe48a; }
.call { border-top: 1px solid #eee; padding: 4px 0; }
.call-head { color: #555; font-weight: 600; }
.call pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0 4px; font-size: 11px; background: #f7f7f9;
            padding: 3px 5px; }
.call .who { color: #666; }
.call .image-ref { max-width: 160px; max-height: 100px; border: 1px solid #ccc; display: inline-block;
                   vertical-align: top; margin: 2px 12px 2px 0; }
.call .label-part { font-size: 11px; vertical-align: top; }
.call-error, .step-error, .episode-error { color: #b3261e; margin: 3px 0; }
.panel .traceback { max-height: 16em; overflow: auto; font-size: 11px; white-space: pre-wrap; background: #fbf3f2;
                    padding: 4px 6px; }
`;
