"""report.html: one self-contained file a browser opens straight from the run folder.

Success per domain as a bar chart, the taxonomy counts, the run metrics, a
table of episodes linking their steps.jsonl and last screenshot (relative
links into the run folder), and the per-step timeline of an episode chosen
from a list, drawn by the same script the live viewer uses. Everything is
rendered here except the timeline, whose step data is embedded as JSON.
Every value from the run is escaped: task ids and reasons are untrusted text.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from protocols import to_json

from actors.run_folder import ResultLine, episode_dir, read_results, read_steps, screenshot_path
from bench.viewer.state import status_of

REPORT = "report.html"
TAXONOMY_THRESHOLD = 0.5
"""An episode counts under a category whose score reaches this."""


def write_report(run_dir: Path, summary: dict, lines: list[ResultLine] | None = None) -> Path:
    run_dir = Path(run_dir)
    lines = read_results(run_dir) if lines is None else lines
    path = run_dir / REPORT
    path.write_text(render(run_dir, summary, lines))
    return path


def taxonomy_counts(summary: dict, lines: list[ResultLine]) -> dict[str, float]:
    """The analysis's own counts (summary["taxonomy"]["categories"]) when present, else counted here."""
    given = (summary.get("taxonomy") or {}).get("categories")
    if isinstance(given, dict) and all(isinstance(v, (int, float)) for v in given.values()):
        return dict(given)
    counts: dict[str, float] = {}
    for line in lines:
        for category, score in line.categories.items():
            if score >= TAXONOMY_THRESHOLD:
                counts[category] = counts.get(category, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def render(run_dir: Path, summary: dict, lines: list[ResultLine]) -> str:
    e = html.escape
    overall = summary.get("overall", {})
    steps = {}
    rows = []
    for line in lines:
        r = line.result
        folder = episode_dir(run_dir, r.task_id, r.attempt)
        records = read_steps(folder)
        if records:
            steps[r.task_id] = {"steps": records}
        relative = folder.relative_to(run_dir).as_posix()
        links = [f'<a href="{e(relative)}/steps.jsonl">steps</a>'] if records else []
        if records and screenshot_path(folder, records[-1].step).exists():
            links.append(f'<a href="{e(relative)}/step-{records[-1].step:03d}.png">screenshot</a>')
        if records:
            links.append(f'<a href="#timeline" class="pick" data-task="{e(r.task_id)}">timeline</a>')
        rows.append(
            f"<tr class=\"{e(status_of(r).replace(' ', '-'))}\"><td>{e(r.task_id)}</td><td>{e(r.domain)}</td>"
            f"<td>{r.attempt}</td><td>{e(status_of(r))}</td><td>{r.score:.2f}</td><td>{r.steps}</td>"
            f"<td>{r.timings.total:.1f}</td><td>{r.input_tokens + r.output_tokens}</td><td>{r.cost:.4f}</td>"
            f"<td>{e(r.reason)}</td><td>{' '.join(links)}</td></tr>"
        )
    data = to_json(steps).replace(b"</", b"<\\/").decode()
    script = resources.files("bench.viewer").joinpath("timeline.js").read_text()
    options = "".join(f'<option value="{e(task)}">{e(task)}</option>' for task in steps)
    return _PAGE.format(
        title=e(f"troupe run {run_dir.name}"),
        overall=e(f"{overall.get('succeeded', 0)}/{overall.get('episodes', 0)} episodes succeeded "
                  f"({overall.get('success_rate', 0):.0%})"),
        domains=_bars({d: f.get("success_rate", 0.0) for d, f in summary.get("domains", {}).items()},
                      percent=True),
        taxonomy=_bars(taxonomy_counts(summary, lines), percent=False) or "<p>no analysis categories</p>",
        metrics=_metrics_table(summary.get("metrics", {})),
        rows="\n".join(rows), options=options, data=data, script=script,
    )


def _bars(values: dict[str, float], *, percent: bool) -> str:
    if not values:
        return ""
    top = 1.0 if percent else max(values.values()) or 1.0
    return "\n".join(
        f'<div class="bar-row"><span class="bar-label">{html.escape(name)}</span>'
        f'<span class="bar" style="width:{max(0.5, 100 * value / top):.1f}%"></span>'
        f'<span class="bar-value">{f"{value:.0%}" if percent else f"{value:g}"}</span></div>'
        for name, value in values.items()
    )


def _metrics_table(metrics: dict) -> str:
    flat = {k: v for k, v in metrics.items() if not isinstance(v, dict)}
    flat.update({f"{actor} s/step": v for actor, v in metrics.get("actor_seconds_per_step", {}).items()})
    cells = "".join(
        f"<tr><th>{html.escape(k.replace('_', ' '))}</th><td>{v:.4g}</td></tr>" if isinstance(v, float)
        else f"<tr><th>{html.escape(k.replace('_', ' '))}</th><td>{html.escape(json.dumps(v))}</td></tr>"
        for k, v in flat.items()
    )
    return f"<table class=\"metrics\">{cells}</table>"


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 16px 24px; color: #222; }}
h2 {{ margin-top: 28px; }}
.bar-row {{ display: flex; align-items: center; gap: 8px; margin: 3px 0; max-width: 720px; }}
.bar-label {{ width: 180px; flex: none; overflow-wrap: anywhere; }}
.bar {{ height: 16px; background: #3b6fd1; display: inline-block; }}
.bar-value {{ font-size: 12px; color: #444; }}
table {{ border-collapse: collapse; font-size: 12px; }}
td, th {{ border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; vertical-align: top; }}
tr.succeeded td:nth-child(4) {{ color: #1b7a2e; }} tr.failed td:nth-child(4) {{ color: #b02a2a; }}
#timeline {{ max-width: 1100px; margin-top: 8px; }}
</style></head><body>
<h1>{title}</h1>
<p id="overall">{overall}</p>
<h2>Success per domain</h2><div id="domains">{domains}</div>
<h2>Failure taxonomy</h2><div id="taxonomy">{taxonomy}</div>
<h2>Metrics</h2>{metrics}
<h2>Episodes</h2>
<table id="episodes"><thead><tr><th>task</th><th>domain</th><th>attempt</th><th>status</th><th>score</th>
<th>steps</th><th>seconds</th><th>tokens</th><th>cost</th><th>reason</th><th>records</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<h2>Timeline of one episode</h2>
<select id="pick">{options}</select>
<div id="timeline"></div>
<script type="application/json" id="steps-data">{data}</script>
<script>
{script}
</script>
<script>
"use strict";
const style = document.createElement("style");
style.textContent = TIMELINE_CSS;
document.head.appendChild(style);
const episodes = JSON.parse(document.getElementById("steps-data").textContent);
const pick = document.getElementById("pick");
function choose(task) {{
  pick.value = task;
  if (episodes[task]) renderTimeline(document.getElementById("timeline"), episodes[task].steps);
}}
pick.onchange = () => choose(pick.value);
document.querySelectorAll("a.pick").forEach(a => a.onclick = () => choose(a.dataset.task));
if (pick.value) choose(pick.value);
</script>
</body></html>
"""
