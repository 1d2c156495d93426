"""Domain-free actor machinery: actors, supervision, limits, events, transports, nodes.

Imports only `protocols`; knows nothing about screens, LLMs or benchmarks.
"""
