"""`python -m accord` is the `accord` command."""

from accord.cli.main import main

main()
