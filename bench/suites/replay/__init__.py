"""Replaying a run folder as a static benchmark: its recorded screens, served by replay VMs, scored step by step."""
