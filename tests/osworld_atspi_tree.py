"""OSWorld's own /accessibility tree of a desktop, for parity tests: run as a script with the desktop's
DISPLAY and DBUS_SESSION_BUS_ADDRESS, it prints what OSWorld's server (reference/desktop_env/server/main.py,
its `_create_atspi_node`, through pyatspi) answers there.

Only the tree's code is taken from main.py (its Flask app and the rest are never imported): the
functions and constants it names, run over Debian's pyatspi (python3-pyatspi, from the system's
dist-packages, which the virtualenv does not see). Applications are walked one after another where
OSWorld's threads append them as they finish.
"""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
from pathlib import Path

REFERENCE_SERVER = Path(__file__).resolve().parents[2] / "shared" / "osworld" / "reference" / "desktop_env" / "server" / "main.py"
SYSTEM_PACKAGES = "/usr/lib/python3/dist-packages"
_TAKEN = {"_accessibility_ns_map", "_accessibility_ns_map_ubuntu", "MAX_DEPTH", "MAX_WIDTH", "MAX_CALLS",
          "libreoffice_version_tuple", "_get_libreoffice_version", "_create_atspi_node"}


def _taken_code() -> str:
    module = ast.parse(REFERENCE_SERVER.read_text())
    keep = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef):
            names = {node.name}
        elif isinstance(node, ast.Assign):
            names = {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = {node.target.id}
        else:
            continue
        if names & _TAKEN:
            keep.append(node)
    return ast.unparse(ast.Module(body=keep, type_ignores=[]))


def main() -> None:
    sys.path.append(SYSTEM_PACKAGES)
    import lxml.etree
    import pyatspi
    from typing import Any, Dict, List, Optional, Sequence, Tuple

    namespace: dict = {
        "pyatspi": pyatspi, "Accessible": pyatspi.Accessible, "StateType": pyatspi.StateType,
        "STATE_SHOWING": pyatspi.STATE_SHOWING, "ATAction": pyatspi.Action, "Component": pyatspi.Component,
        "ATText": pyatspi.Text, "ATValue": pyatspi.Value, "lxml": lxml, "_Element": lxml.etree._Element,
        "logger": logging.getLogger("osworld-server"), "subprocess": subprocess, "Any": Any, "Dict": Dict,
        "List": List, "Optional": Optional, "Sequence": Sequence, "Tuple": Tuple,
    }
    exec(compile(_taken_code(), str(REFERENCE_SERVER), "exec"), namespace)
    namespace["libreoffice_version_tuple"] = namespace["_get_libreoffice_version"]()
    root = lxml.etree.Element("desktop-frame", nsmap=namespace["_accessibility_ns_map_ubuntu"])
    for application in pyatspi.Registry.getDesktop(0):
        root.append(namespace["_create_atspi_node"](application, 1))
    sys.stdout.write(lxml.etree.tostring(root, encoding="unicode"))


if __name__ == "__main__":
    main()
