"""Scripted baseline agents: no LLM, so the whole system runs for real without an API key."""
