"""Run-level error analysis: episodes per taxonomy category, overall and per domain, and which.

The taxonomy is multi-label, so an episode counts under every category it
scores at least `threshold` in, and the counts may add up to more than the
episodes. An episode without an analysis (or none above the threshold) is
"unclassified" rather than silently missing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from actors.run_folder import ResultLine

THRESHOLD = 0.5
UNCLASSIFIED = "unclassified"


def taxonomy(lines: Iterable[ResultLine], *, threshold: float = THRESHOLD) -> dict:
    """Plain data for summary.json: `categories` (counts), `domains` (counts per
    domain) and `episodes` (episode ids per category)."""
    counts: Counter[str] = Counter()
    domains: defaultdict[str, Counter[str]] = defaultdict(Counter)
    episodes: defaultdict[str, list[str]] = defaultdict(list)
    for line in lines:
        labels = sorted(name for name, score in line.categories.items() if score >= threshold) or [UNCLASSIFIED]
        for label in labels:
            counts[label] += 1
            domains[line.result.domain or "-"][label] += 1
            episodes[label].append(line.result.episode_id)
    return {
        "threshold": threshold,
        "categories": dict(sorted(counts.items())),
        "domains": {domain: dict(sorted(c.items())) for domain, c in sorted(domains.items())},
        "episodes": {label: sorted(ids) for label, ids in sorted(episodes.items())},
    }
