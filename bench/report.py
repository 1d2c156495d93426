"""report.html: one file a browser opens straight from the run folder.

Success per domain as a bar chart drawn to scale, the failure taxonomy
counts, the run metrics ("n/a" where one is undefined), the suite's own
figures (`bench.figure_tables`) when it has any, a sortable table of episodes, and the steps of an episode chosen from a list: each step's action,
change summary and timings beside the screen it acted on, the screen after its
last step, its per-step timeline, drawn by the same script the live viewer
uses, and its model calls (role, step, reply, what went wrong, tokens, time,
the picture the model was shown; the prompts stay in calls.jsonl, linked). The screens are images of the run folder, linked relatively, so the
report stays small however many screenshots the run took, and says so; with
`inline` (`python -m bench.report RUN --inline`) they are embedded and the
file stands alone, to be mailed or archived. Everything is rendered here
except the steps and the timeline, whose data is embedded as JSON.
Every value from the run is escaped: task ids and reasons are untrusted text.
An episode whose files are garbled is listed with the error naming the file,
and results.jsonl lines the summary ignored (duplicates, tasks of another
run) are named above the table; neither stops the rest of the report.
"""

from __future__ import annotations

import argparse
import base64
import html
import os
import sys
from importlib import resources
from pathlib import Path

from protocols import to_json

from actors.run_folder import (
    CALLS, ResultLine, ResultsError, episode_label, read_calls, read_episodes, read_results,
    read_screenshot_file, read_task, result_dir, screenshot_path,
)
from actors.whole_writes import write_whole
from bench.figure_tables import figure_tables, figure_text
from bench.summary import interval_name, left_out, pass_lines, success_cell
from bench.viewer.state import status_of

REPORT = "report.html"
TAXONOMY_THRESHOLD = 0.5
"""An episode counts under a category whose score reaches this."""
SUCCESS = "success"


def write_report(run_dir: Path, summary: dict, lines: list[ResultLine] | None = None, *,
                 inline: bool = False, path: Path | None = None) -> Path:
    """Write the report to `path` (default: the run folder's report.html); its links to screenshots
    are relative to where it is written, or with `inline` the screenshots are in it."""
    run_dir = Path(run_dir)
    lines = read_results(run_dir) if lines is None else lines
    path = run_dir / REPORT if path is None else Path(path)
    write_whole(path, render(run_dir, summary, lines, inline=inline, links_from=path.parent).encode())
    return path


def taxonomy_counts(summary: dict, lines: list[ResultLine]) -> dict[str, float]:
    """Episodes per failure category: the analysis's own counts (summary["taxonomy"]["categories"])
    when present, else counted here. "success" is the classifier's verdict, not a failure: left out."""
    given = (summary.get("taxonomy") or {}).get("categories")
    if isinstance(given, dict) and all(isinstance(v, (int, float)) for v in given.values()):
        return {category: count for category, count in given.items() if category != SUCCESS}
    counts: dict[str, float] = {}
    for line in lines:
        for category, score in line.categories.items():
            if score >= TAXONOMY_THRESHOLD and category != SUCCESS:
                counts[category] = counts.get(category, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def render(run_dir: Path, summary: dict, lines: list[ResultLine], *, inline: bool = False,
           links_from: Path | None = None) -> str:
    """The report's HTML; screenshot links are relative to `links_from` (default: the run folder),
    or with `inline` the screenshots are embedded."""
    e = html.escape
    overall = summary.get("overall", {})
    episodes, unreadable = read_episodes(run_dir, lines)
    recorded = {episode_label(episode.line.result.task_id, episode.line.result.repeat): episode.steps
                for episode in episodes}
    base = Path(os.path.relpath(run_dir, links_from or run_dir))
    steps = {}
    rows = []
    for line in lines:
        r = line.result
        name = episode_label(r.task_id, r.repeat)  # a row per episode: ~R for repeat R >= 2
        folder = result_dir(run_dir, r)
        records = recorded.get(name, [])
        relative = (base / folder.relative_to(run_dir)).as_posix()
        if records:
            steps[name] = {"steps": records, "folder": relative, "calls": _calls(folder),
                           "shots": (_embedded(folder, records[-1].step) if inline
                                     else _linked(folder, records[-1].step, relative))}
        links = [f'<a href="#steps" class="pick" data-task="{e(name)}">steps</a>'] if records else []
        if name in unreadable:
            links.append(f'<span class="unreadable">unreadable: {e(unreadable[name])}</span>')
        if records and not inline and (shot := screenshot_path(folder, records[-1].step)).exists():
            links.append(f'<a href="{e(relative)}/{e(shot.name)}">screenshot</a>')
        instruction = _instruction(folder)
        rows.append(
            f"<tr class=\"{e(status_of(r).replace(' ', '-'))}\"><td>{e(name)}"
            f"{f'<div class=instruction>{e(instruction)}</div>' if instruction else ''}</td><td>{e(r.domain)}</td>"
            f"<td>{r.attempt}</td><td>{e(status_of(r))}</td><td>{r.score:.2f}</td><td>{r.steps}</td>"
            f"<td>{r.timings.total:.1f}</td><td>{r.input_tokens + r.output_tokens}</td><td>{r.cost:.4f}</td>"
            f"<td>{e(r.reason)}</td><td>{' '.join(links)}</td></tr>"
        )
    data = to_json(steps).replace(b"</", b"<\\/").decode()
    script = resources.files("bench.viewer").joinpath("timeline.js").read_text()
    options = "".join(f'<option value="{e(task)}">{e(task)}</option>' for task in steps)
    return _PAGE.format(
        title=e(f"troupe run {run_dir.name}"),
        overall=e(f"episodes succeeded: {success_cell(overall)} ({interval_name(summary)}); "
                  f"{overall.get('mean_steps', 0):.1f} ± {overall.get('sd_steps', 0):.1f} steps, "
                  f"{overall.get('mean_seconds', 0):.1f} ± {overall.get('sd_seconds', 0):.1f} s per episode (± sd), "
                  f"{overall.get('seconds_per_step', 0):.3f} s per step, "
                  f"failures: {overall.get('agent_errors', 0)} agent, "
                  f"{overall.get('environment_errors', 0)} environment, "
                  f"{overall.get('model_service_errors', 0)} model service, "
                  f"{overall.get('evaluation_errors', 0)} evaluation (harness)"
                  + "".join(f"; {line}" for line in pass_lines(summary))),
        domains=_bars({d: f.get("success_rate", 0.0) for d, f in summary.get("domains", {}).items()},
                      percent=True, texts={d: success_cell(f) for d, f in summary.get("domains", {}).items()}),
        taxonomy=_bars(taxonomy_counts(summary, lines), percent=False) or "<p>no failure categories</p>",
        metrics=_metrics_table(summary.get("metrics", {})),
        suite_figures=_suite_figures(summary),
        damage=_damage(summary),
        rows="\n".join(rows), options=options, data=data, script=script,
        screens=_SCREENS_INLINE if inline else _SCREENS_LINKED, calls_file=CALLS,
    )


_SCREENS_LINKED = ("The screens are linked from the run folder, so they show only beside it; "
                   "<code>python -m bench.report RUN --inline</code> writes a report with them inside.")
_SCREENS_INLINE = "The screens are embedded: this file needs no other."


def _linked(folder: Path, last: int, relative: str) -> dict[int, str]:
    """Every stored screen of the episode (before its first step to after its last) by its file
    (step-NNN.png, or .webp/.jpg of a run storing them lossy) relative to the report, by step."""
    shots = {step: screenshot_path(folder, step) for step in range(last + 1)}
    return {step: f"{relative}/{path.name}" for step, path in shots.items() if path.exists()}


def _embedded(folder: Path, last: int) -> dict[int, str]:
    """Every screen of the episode (before its first step to after its last) as a data: URL, by step."""
    shots = {step: read_screenshot_file(folder, step) for step in range(last + 1)}
    return {step: f"data:{media_type};base64," + base64.b64encode(image).decode()
            for step, (image, media_type) in shots.items() if image}


REPLY_CHARS = 2000
"""A reply longer than this is cut in the report (calls.jsonl has it whole)."""


def _calls(folder: Path) -> list[dict]:
    """The episode's model calls as the report lists them: no prompts, each picture by its file, the
    calls about the episode as a whole (the error classifier's, recorded as step 0) named so, not as a
    step; a calls.jsonl that cannot be read is one row saying so."""
    try:
        calls = read_calls(folder)
    except ResultsError as exc:
        return [{"role": "unreadable", "reply": str(exc)}]
    return [{"step": str(c.step) if c.step else "the episode", "role": c.role, "reply": c.reply[:REPLY_CHARS],
             "error": c.error, "rejected": c.rejected, "restarted": c.restarted, "gave_up": c.gave_up,
             "tokens": c.input_tokens + c.output_tokens, "latency": c.latency, "retries": len(c.retries),
             "pictures": _pictures(c.messages)} for c in calls]


def _pictures(value) -> list[str]:
    """The files of the images a call's messages name, in order."""
    if isinstance(value, list):
        return [name for item in value for name in _pictures(item)]
    if not isinstance(value, dict):
        return []
    if value.get("type") == "image":
        return [value["file"]] if isinstance(value.get("file"), str) else []
    return _pictures(list(value.values()))


def _instruction(folder: Path) -> str:
    """The instruction the episode ran with (task.json), or nothing for a folder without one."""
    try:
        return read_task(folder).instruction
    except ResultsError:
        return ""


def _suite_figures(summary: dict) -> str:
    """The suite's own figures (summary.json under the name its "suite" gives), if it has any."""
    suite = summary.get("suite")
    if not isinstance(suite, str) or suite not in summary:
        return ""
    return f'<h2>Figures of {html.escape(suite)}</h2><div id="suite-figures">{figure_tables(suite, summary[suite])}</div>'


def _damage(summary: dict) -> str:
    """What the figures leave out and why (`bench.summary.left_out`), above everything else."""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in left_out(summary))
    return f'<ul id="damage">{items}</ul>' if items else ""


def _bars(values: dict[str, float], *, percent: bool, texts: dict[str, str] | None = None) -> str:
    """One bar per value, its length that share of a track of fixed width (so 71% and 79% differ
    as much as they should); `texts` replaces a bar's printed value (a rate with its interval)."""
    if not values:
        return ""
    top = 1.0 if percent else max(values.values()) or 1.0
    return "\n".join(
        f'<div class="bar-row"><span class="bar-label">{html.escape(name)}</span>'
        f'<span class="bar-track"><span class="bar" style="width:{_bar_width(value, top):.1f}%"></span></span>'
        f'<span class="bar-value">{html.escape(_bar_text(value, percent, (texts or {}).get(name)))}</span></div>'
        for name, value in values.items()
    )


def _bar_text(value: float, percent: bool, text: str | None) -> str:
    if text is not None:
        return text
    return f"{value:.0%}" if percent else f"{value:g}"


def _bar_width(value: float, top: float) -> float:
    """Percent of the row: none for zero, at least a visible sliver for anything above."""
    return max(0.5, 100 * value / top) if value > 0 else 0.0


def _metrics_table(metrics: dict) -> str:
    flat = {k: v for k, v in metrics.items() if not isinstance(v, dict)}
    flat.update({f"{actor} s/step": v for actor, v in metrics.get("actor_seconds_per_step", {}).items()})
    cells = "".join(f"<tr><th>{html.escape(k.replace('_', ' '))}</th><td>{html.escape(figure_text(v))}</td></tr>"
                    for k, v in flat.items())
    return f"<table class=\"metrics\">{cells}</table>"


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 16px 24px; color: #222; }}
h2 {{ margin-top: 28px; }}
.instruction {{ color: #555; font-size: 12px; max-width: 360px; }}
.bar-row {{ display: flex; align-items: center; gap: 8px; margin: 3px 0; }}
.bar-label {{ width: 180px; flex: none; overflow-wrap: anywhere; }}
.bar-track {{ width: 400px; flex: none; height: 16px; background: #eef1f6; }}
.bar {{ height: 16px; background: #3b6fd1; display: block; }}
.bar-value {{ font-size: 12px; color: #444; }}
table {{ border-collapse: collapse; font-size: 12px; }}
td, th {{ border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; vertical-align: top; }}
tr.succeeded td:nth-child(4) {{ color: #1b7a2e; }} tr.failed td:nth-child(4) {{ color: #b02a2a; }}
#timeline {{ max-width: 1100px; margin-top: 8px; }}
#episodes th {{ cursor: pointer; user-select: none; }}
#episodes th[data-order=up]::after {{ content: " ▲"; }} #episodes th[data-order=down]::after {{ content: " ▼"; }}
#steps img, #final img {{ width: 320px; max-height: 220px; object-fit: contain; background: #f3f3f3; }}
#screens {{ color: #555; font-size: 12px; }}
#damage, .unreadable, #calls tr.gave-up td:nth-child(4) {{ color: #b02a2a; }}
#suite-figures h3 {{ font-size: 14px; margin: 14px 0 4px; }}
#calls td:nth-child(3) {{ max-width: 520px; white-space: pre-wrap; overflow-wrap: anywhere; }}
</style></head><body>
<h1>{title}</h1>
<p id="overall">{overall}</p>
{damage}
<h2>Success per domain</h2><div id="domains">{domains}</div>
<h2>Failure taxonomy</h2><div id="taxonomy">{taxonomy}</div>
<h2>Metrics</h2>{metrics}
{suite_figures}
<h2>Episodes</h2>
<table id="episodes"><thead><tr><th>task</th><th>domain</th><th>attempt</th><th>status</th><th>score</th>
<th>steps</th><th>seconds</th><th>tokens</th><th>cost</th><th>reason</th><th>records</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<h2>Steps of one episode</h2>
<p id="screens">{screens}</p>
<select id="pick">{options}</select>
<div id="timeline"></div>
<table id="steps"><thead><tr><th>step</th><th>the screen it acted on</th><th>action</th><th>error</th>
<th>change summary</th><th>agent s</th><th>act s</th><th>observe s</th></tr></thead><tbody></tbody></table>
<table id="calls" hidden><caption>model calls (<a id="transcript">calls.jsonl</a> holds each request too)</caption>
<thead><tr><th>step</th><th>role</th><th>reply</th><th>what went wrong</th><th>tokens</th><th>s</th>
<th>picture shown</th></tr></thead><tbody></tbody></table>
<figure id="final" hidden><img alt="the screen after the last step" onerror="this.parentNode.hidden = true"><figcaption>the screen after the last step</figcaption></figure>
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
function cell(row, content) {{
  const td = document.createElement("td");
  td.append(content);
  row.appendChild(td);
}}
// The screen after `step`: embedded (an --inline report), else the run folder's file.
function screen(episode, step) {{
  return episode.shots[step] || "";
}}
function choose(task) {{
  pick.value = task;
  const episode = episodes[task];
  if (!episode) return;
  renderTimeline(document.getElementById("timeline"), episode.steps);
  const last = episode.steps[episode.steps.length - 1], final = document.getElementById("final");
  final.hidden = !screen(episode, last.step);
  final.querySelector("img").src = screen(episode, last.step);
  document.querySelector("#steps tbody").replaceChildren(...episode.steps.map(s => {{
    const row = document.createElement("tr"), t = s.timings || {{}}, img = document.createElement("img");
    img.loading = "lazy";
    img.alt = `screen before step ${{s.step}}`;
    img.src = screen(episode, s.step - 1);
    for (const v of [String(s.step), img, describeAction(s.action), s.error || "", s.summary ? s.summary.changes : "no summary",
                     (t.agent || 0).toFixed(3), (t.act || 0).toFixed(3), (t.observe || 0).toFixed(3)]) cell(row, v);
    return row;
  }}));
  showCalls(episode);
}}
// The episode's model calls: what each role was told back, and why a request got no answer.
function showCalls(episode) {{
  const table = document.getElementById("calls"), calls = episode.calls || [];
  table.hidden = !calls.length;
  document.getElementById("transcript").href = `${{episode.folder}}/{calls_file}`;
  document.querySelector("#calls tbody").replaceChildren(...calls.map(c => {{
    const row = document.createElement("tr"), pictures = document.createElement("span");
    const wrong = [c.error, c.rejected && `sent back: ${{c.rejected}}`, c.restarted && `restarted: ${{c.restarted}}`,
                   c.retries && `${{c.retries}} retries`, c.gave_up && "gave up"].filter(Boolean).join("; ");
    pictures.append(...(c.pictures || []).map(name => {{
      const link = document.createElement("a");
      link.href = `${{episode.folder}}/${{name}}`;
      link.textContent = name + " ";
      return link;
    }}));
    for (const v of [c.step || "", c.role || "", c.reply || "", wrong, String(c.tokens ?? ""),
                     (c.latency || 0).toFixed(2), pictures]) cell(row, v);
    if (c.gave_up) row.className = "gave-up";
    return row;
  }}));
}}
// Click a column heading to sort the episodes by it; again to reverse.
document.querySelectorAll("#episodes th").forEach((th, column) => th.onclick = () => {{
  const up = th.dataset.order !== "up";
  document.querySelectorAll("#episodes th").forEach(h => delete h.dataset.order);
  th.dataset.order = up ? "up" : "down";
  const body = document.querySelector("#episodes tbody");
  const key = (row) => {{
    const text = row.children[column].textContent;
    return text !== "" && !isNaN(text) ? Number(text) : text;
  }};
  const rows = [...body.rows].sort((a, b) => {{
    const x = key(a), y = key(b);
    return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * (up ? 1 : -1);
  }});
  body.replaceChildren(...rows);
}});
pick.onchange = () => choose(pick.value);
document.querySelectorAll("a.pick").forEach(a => a.onclick = () => choose(a.dataset.task));
if (pick.value) choose(pick.value);
</script>
</body></html>
"""


def main(argv: list[str] | None = None, prog: str = "python -m bench.report") -> int:
    """Write a finished run's report again: to share it (`--inline`) or put it elsewhere (`--out`)."""
    parser = argparse.ArgumentParser(prog=prog, description="Write a run folder's report.html again from its "
                                     "results and summary.json.")
    parser.add_argument("run", type=Path, metavar="RUN_DIR", help="a run folder")
    parser.add_argument("--inline", action="store_true",
                        help="embed the screenshots: one file that opens anywhere (larger; the default links them)")
    parser.add_argument("--out", type=Path, default=None, help=f"where to write it (default: RUN_DIR/{REPORT})")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from bench.api import load_run

    try:
        run = load_run(args.run)
    except ResultsError as exc:
        parser.error(str(exc))
    except ValueError as exc:  # summary.json that is not JSON
        parser.error(f"{args.run / 'summary.json'}: not readable as JSON ({exc})")
    try:
        path = write_report(run.folder, run.summary, run.results, inline=args.inline, path=args.out)
    except OSError as exc:
        parser.error(f"cannot write {args.out or args.run / REPORT}: {exc.strerror or exc}")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
