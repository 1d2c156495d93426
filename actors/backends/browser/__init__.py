"""A real Chromium as a VM: Playwright's async API, hosted in a node process.

Playwright's async API needs asyncio, so the browser always lives in a node
(`python -m runtime.node --app actors.backends.browser.node:build`, or a suite's
node app that plugs in its sites) whatever event
loop the supervisor runs on. One browser per node, one fresh browser context
per episode.
"""
