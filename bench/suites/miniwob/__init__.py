"""MiniWoB++ on real Chromium: its tasks, its site in the browser, its node app, checker and scripted agent."""
