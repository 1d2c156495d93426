"""Where the tests find the repository and their fixture files, wherever a test module sits."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
