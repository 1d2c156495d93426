"""A WAA-protocol server for a Linux desktop: WAA's endpoints on 127.0.0.1 against
an Xvfb session, so the WAA backend and WAA-format tasks run on Linux.

    python -m actors.backends.waa.server --port 5000 --token SECRET [--size 1280x800] [--root DIR] [--allow-commands]
"""
