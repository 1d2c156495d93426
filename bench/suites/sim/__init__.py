"""The simulated suite: generated tasks on the in-process simulated VM, its checker and agent."""
