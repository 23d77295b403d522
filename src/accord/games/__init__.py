"""Accord's own games: calendar (CalBench), negotiation and sorting (MAS-Bench).

They are found like any other package's games, through the entry points declared in Accord's
``pyproject.toml`` (see `accord.core.plugins`); importing this package registers nothing.
"""
