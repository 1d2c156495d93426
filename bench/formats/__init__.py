"""File formats that more than one suite's reference reads the same way (no suite imports another)."""
