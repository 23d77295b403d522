"""The `accord` command."""
