"""Windows Agent Arena task files: reading and checking them, and what of them this project can run."""
