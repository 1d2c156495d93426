"""A small Mind2Web data folder in the released format, whose scores the tests compute by hand.

Five tasks over the three test splits (`<split>/<split>_0.json`, each a list of
tasks as Mind2Web's files are), one with the raw dump's screenshots
(`raw_dump/task/<id>/processed/screenshot.json`), and the same tasks as the
multimodal release's parquet rows. What the scripted baseline does on each
step, and so each figure, is worked out in test_mind2web.py.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image

SPLIT_FILES = {"test_task": ["flight", "shoe"], "test_website": ["seat"], "test_domain": ["movie", "empty"]}


def candidate(node_id: str, tag: str, box: str = "-1,-1,-1,-1", **attributes: str) -> dict:
    """One candidate as Mind2Web stores it: the attributes a JSON object inside a string."""
    return {"tag": tag, "backend_node_id": node_id, "is_original_target": False, "is_top_level_target": False,
            "attributes": json.dumps({"backend_node_id": node_id, "bounding_box_rect": box, **attributes})}


def action(uid: str, op: str, value: str, positives: list[dict], negatives: list[dict], html: str) -> dict:
    return {"action_uid": uid, "raw_html": f"<html>{html}</html>", "cleaned_html": f"<html>{html}</html>",
            "operation": {"op": op, "original_op": op, "value": value},
            "pos_candidates": positives, "neg_candidates": negatives}


def task(annotation_id: str, website: str, domain: str, instruction: str, reprs: list[str], actions: list[dict]) -> dict:
    return {"annotation_id": annotation_id, "website": website, "domain": domain, "subdomain": domain.lower(),
            "confirmed_task": instruction, "action_reprs": reprs, "actions": actions}


TASKS = {
    "flight": task("ann-flight", "united", "Travel", "Find one-way flights from New York to London",
                   ["[link]  One-way -> CLICK", "[textbox]  From -> TYPE: New York"], [
        action("f-0", "CLICK", "", [candidate("101", "a", "10,10,80,20")],
               [candidate("102", "button", "100,10,80,20"), candidate("103", "input", "10,50,200,20",
                                                                      placeholder="From")],
               '<a backend_node_id="101">One-way</a><button backend_node_id="102">Hotels</button>'
               '<input backend_node_id="103" placeholder="From"/>'),
        action("f-1", "TYPE", "New York", [candidate("103", "input", "10,50,200,20", placeholder="From")],
               [candidate("101", "a", "10,10,80,20"), candidate("104", "button", "10,90,120,20")],
               '<a backend_node_id="101">One-way</a><input backend_node_id="103" placeholder="From"/>'
               '<button backend_node_id="104">Search flights</button>'),
    ]),
    "shoe": task("ann-shoe", "nike", "Shopping", "Add running shoes to cart", ["[button]  Add to cart -> CLICK"], [
        action("s-0", "CLICK", "", [candidate("301", "button")], [candidate("302", "a")],
               '<button backend_node_id="301">Add to cart</button><a backend_node_id="302">Running shoes</a>'),
    ]),
    "seat": task("ann-seat", "delta", "Travel", "Choose economy class for the trip",
                 ["[combobox]  cabin -> SELECT: Economy"], [
        action("c-0", "SELECT", "Economy", [candidate("401", "select", name="cabin")],
               [candidate("402", "button")],
               '<select backend_node_id="401" name="cabin"><option backend_node_id="411">First</option>'
               '<option backend_node_id="412">Business</option><option backend_node_id="413">Economy</option>'
               '</select><button backend_node_id="402">Continue</button>'),
    ]),
    "movie": task("ann-movie", "imdb", "Entertainment", "Show the trailer of Dune",
                  ["[link]  Dune: Part Two -> CLICK", "[button]  Watch -> CLICK"], [
        action("m-0", "CLICK", "", [candidate("501", "a", "20,20,100,30")], [candidate("502", "a", "20,60,100,30")],
               '<a backend_node_id="501">Dune: Part Two</a><a backend_node_id="502">Oppenheimer</a>'),
        action("m-1", "CLICK", "", [candidate("601", "button", "40,100,60,30", aria_label="Watch")],
               [candidate("602", "a", "20,20,100,30"), candidate("603", "a", "40,150,100,30")],
               '<a backend_node_id="602">Dune: Part Two</a><button backend_node_id="601" aria_label="Watch">'
               '<svg></svg></button><a backend_node_id="603">Trailer reviews</a>'),
    ]),
    "empty": task("ann-empty", "imdb", "Entertainment", "Open the help page", ["[link]  Help -> CLICK"], [
        action("e-0", "CLICK", "", [], [candidate("701", "a")], '<a backend_node_id="701">Help</a>'),
    ]),
}

SCREENSHOT_SIZE = (320, 240)


def png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", SCREENSHOT_SIZE, colour).save(out, format="PNG")
    return out.getvalue()


SHOTS = {"m-0": png((200, 30, 30)), "m-1": png((30, 200, 30))}


def write_release(root: Path) -> Path:
    """The Mind2Web release's layout: data/<split>/<split>_0.json, and the raw dump's screenshots of ann-movie."""
    for split, names in SPLIT_FILES.items():
        folder = root / "data" / split
        folder.mkdir(parents=True)
        (folder / f"{split}_0.json").write_text(json.dumps([TASKS[name] for name in names]))
    shots = root / "raw_dump" / "task" / "ann-movie" / "processed" / "screenshot.json"
    shots.parent.mkdir(parents=True)
    shots.write_text(json.dumps([{"action_uid": uid, "before": {"screenshot": base64.b64encode(shot).decode()},
                                  "after": {}} for uid, shot in SHOTS.items()]))
    return root


def multimodal_rows(names: list[str]) -> list[dict]:
    """The tasks as the multimodal release's rows: one per action, JSON fields as strings."""
    rows = []
    for name in names:
        item = TASKS[name]
        for index, step in enumerate(item["actions"]):
            rows.append({
                "annotation_id": item["annotation_id"], "website": item["website"], "domain": item["domain"],
                "subdomain": item["subdomain"], "confirmed_task": item["confirmed_task"],
                "action_reprs": item["action_reprs"], "action_uid": step["action_uid"],
                "raw_html": step["raw_html"], "cleaned_html": step["cleaned_html"],
                "operation": json.dumps(step["operation"]),
                "pos_candidates": [json.dumps(c) for c in step["pos_candidates"]],
                "neg_candidates": [json.dumps(c) for c in step["neg_candidates"]],
                "target_action_index": str(index), "target_action_reprs": item["action_reprs"][index],
                "screenshot": {"bytes": SHOTS.get(step["action_uid"]), "path": None},
            })
    return rows


def write_multimodal(root: Path) -> Path:
    """The multimodal release's layout: data/<split>-00000-of-00001.parquet, rows in reverse order
    (the reader orders a task's rows by target_action_index)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (root / "data").mkdir(parents=True)
    for split, names in SPLIT_FILES.items():
        pq.write_table(pa.Table.from_pylist(multimodal_rows(names)[::-1]),
                       root / "data" / f"{split}-00000-of-00001.parquet")
    return root
