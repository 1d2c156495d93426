"""Mind2Web: recorded web tasks in Mind2Web's released format, scored step by step with Mind2Web's own metrics."""
