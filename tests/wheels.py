"""Pure-Python wheels written directly, so that a test installs a distribution with pip and no build step."""

import base64
import hashlib
import zipfile
from pathlib import Path


def write_wheel(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A wheel of distribution `name` holding `files` (path in the wheel -> text), and its metadata."""
    dist = f"{name.replace('-', '_')}-{version}"
    contents = {
        **files,
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    path = folder / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for member, text in contents.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{member},sha256={digest},{len(data)}")
            wheel.writestr(member, data)
        wheel.writestr(f"{dist}.dist-info/RECORD", "\n".join([*record, f"{dist}.dist-info/RECORD,,"]) + "\n")
    return path
