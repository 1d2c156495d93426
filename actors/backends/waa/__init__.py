"""Windows Agent Arena over its own VM server protocol.

A WAA VM runs a small HTTP server (port 5000) that takes screenshots, dumps
the accessibility tree, runs commands and setup steps, and hands files back.
This package talks to it:

- `client`: httpx with retries and backoff; what counts as the VM being gone;
- `devtools`: the VM's browser over the DevTools protocol (Playwright on a driver thread, any loop);
- `commands`: protocol actions as the pyautogui commands WAA sends to /execute;
- `backend`: the VMBackend and ScreenBackend the VMController and Observer wrap; a
  suite's `TaskSteps` prepare tasks and read their state (bench.suites.waa);
- `node`: the VM actors for one server;
- `server`: a WAA-protocol server for a Linux (Xvfb) desktop, so the backend
  and WAA-format tasks run on Linux.
"""
