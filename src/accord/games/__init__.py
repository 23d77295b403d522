"""Built-in games. Importing this package registers each of them."""

from accord.games import negotiation

__all__ = ["negotiation"]
