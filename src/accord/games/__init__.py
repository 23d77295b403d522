"""Built-in games. Importing this package registers each of them."""

from accord.games import calendar, negotiation, sorting

__all__ = ["calendar", "negotiation", "sorting"]
