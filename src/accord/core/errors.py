"""One exception hierarchy for Accord. Every message says what to do next."""

from __future__ import annotations


class AccordError(Exception):
    """Base of every error Accord raises on purpose."""


class AccordWarning(UserWarning):
    """Something that may go wrong later and is worth knowing before it does (a conversation
    that fits a server's context only while replies stay near their usual length); the run
    goes on. The ``accord`` command prints it as one ``warning:`` line."""


class ConfigError(AccordError):
    """A config, scenario file or command-line value is wrong; the message names the key.

    Raised from the Python API, the message names the function's arguments (``pass
    resume=True``); `cli`, when given, is the same message in the ``accord`` command's words
    (``add --resume``), which the command prints instead.
    """

    def __init__(self, message: str = "", *, cli: str | None = None) -> None:
        super().__init__(message)
        self.cli = cli


class UnknownGameError(ConfigError):
    """A game id that is not registered."""


class InputLimitError(AccordError):
    """Untrusted input (a model's tool calls, an agent's request body, a server's answer) broke
    one of the bounds of `accord.core.inputs`; the message names the limit.

    Attributes:
        limit: the name of the limit, as in the table of ``docs/running.md`` ("Bounds on
            untrusted input"), e.g. ``MAX_TOOL_CALLS``.
    """

    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class ActionError(AccordError):
    """An action does not parse or breaks a rule.

    Raised by `ActionSpec.parse` and `Game.submit`. The message is shown verbatim to the model
    when it is asked to try again, so it must say what was wrong and what a valid answer is.
    """

    def __init__(self, message: str, *, kind: str = "validation_error") -> None:
        super().__init__(message)
        self.kind = kind


class ModelError(AccordError):
    """A model call failed for good (after retries) or cannot be made at all.

    Attributes:
        status: the HTTP status the provider answered with, when there was one.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ModelUnavailableError(ModelError):
    """A seat's model could not be reached for good during a game: the game ends ``failed``.

    Bad *output* from a working model is not this: it is re-prompted and, at worst, replaced by
    the request's documented fallback (seed 004 App. B), and the game stays scored.

    Attributes:
        seat: the index of the seat whose model failed.
        model: the ``provider/model`` string.
    """

    def __init__(
        self, message: str, *, seat: int, model: str | None, status: int | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.seat = seat
        self.model = model


class ProviderNotFoundError(ModelError, ConfigError):
    """A `provider/model` string whose provider is not registered."""


class MissingAPIKeyError(ModelError, ConfigError):
    """A hosted provider needs an API key that is not in the environment."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(
            f"{provider} needs an API key: set the environment variable {env_var} "
            f"(for example `export {env_var}=...`) and run again."
        )
        self.env_var = env_var


class TransientModelError(ModelError):
    """A failure worth retrying: rate limit, 5xx, timeout, dropped connection."""

    def __init__(
        self, message: str, *, retry_after_s: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after_s = retry_after_s
