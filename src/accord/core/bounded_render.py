"""Rendering prompt templates with bounded time and size.

A prompt-override template is a file a researcher (or a colleague's folder) supplies, so it is
untrusted the way an experiment file is. Jinja2's sandbox keeps a template away from Python
internals and caps ``range`` at 100,000 items, but nested loops still multiply (two of them are
10^10 steps: a run that never ends), and a few operators and filters build huge strings in one
step (``"x" * 10**9``, ``center(10**9)``, a ``replace`` that grows its text each time).

`BoundedEnvironment` adds, for every render:

* a time budget (`MAX_RENDER_S`): every loop iteration and every call (macros, ``loop()``
  recursion, functions) counts as a step, and the clock is read every 1,024 steps;
* a step budget (`MAX_STEPS`), the same bound on a slow machine as on a fast one;
* a size budget (`MAX_RENDERED_CHARS`): the output is produced in pieces and counted as it
  grows, and the operators and filters that can make one huge string at once (``*``, ``**``,
  ``%``, ``str.format``, ``center``, ``indent``, ``wordwrap``, ``format``, ``replace``) check
  the size of what they would make before making it.

Going over any of them raises `RenderLimitError`, which the caller turns into one line naming
the template.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2 import nodes
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

MAX_RENDER_S = 2.0
"""Seconds one template may take to render (a prompt renders in well under a millisecond)."""

MAX_STEPS = 2_000_000
"""Loop iterations and calls one render may make."""

MAX_RENDERED_CHARS = 1_000_000
"""Characters one rendered prompt may have: about 250,000 tokens, more than any model's
context window holds."""

_LOOP_GUARD = "__accord_bounded_loop"
_WIDTH = re.compile(r"\d{7,}")  # a field width or precision of a million or more


class RenderLimitError(Exception):
    """A template went over one of the render budgets."""


@dataclass
class _Budget:
    deadline: float
    steps: int = 0


_BUDGET: ContextVar[_Budget | None] = ContextVar("accord_render_budget", default=None)


def _step() -> None:
    budget = _BUDGET.get()
    if budget is None:
        return
    budget.steps += 1
    if budget.steps > MAX_STEPS:
        raise RenderLimitError(
            f"it takes more than {MAX_STEPS:,} loop steps and calls to render (nested loops?)"
        )
    if budget.steps % 1024 == 0 and time.monotonic() > budget.deadline:
        raise RenderLimitError(f"it takes more than {MAX_RENDER_S:g} s to render (nested loops?)")


def _bounded_loop(iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _step()
        yield item


def _check_size(n: int, what: str) -> None:
    if n > MAX_RENDERED_CHARS:
        raise RenderLimitError(
            f"{what} would make {n:,} characters, over the {MAX_RENDERED_CHARS:,} a prompt may have"
        )


def _sized(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple) else 0


def _guard_width(name: str, filt: Callable[..., Any], width_at: int) -> Callable[..., Any]:
    """`filt` refusing a width that makes too long a text (`width_at`: the width's position
    among the filter's arguments; the text is the one before it)."""

    def guarded(*args: Any, **kwargs: Any) -> Any:
        width = args[width_at] if len(args) > width_at else kwargs.get("width", 0)
        if isinstance(width, int) and not isinstance(width, bool):
            lines = str(args[width_at - 1]).count("\n") + 1 if len(args) >= width_at else 1
            _check_size(width * (lines if name == "indent" else 1), f"filter {name}({width})")
        return filt(*args, **kwargs)

    _keep_pass_arg(filt, guarded)
    return guarded


def _keep_pass_arg(filt: Callable[..., Any], guarded: Callable[..., Any]) -> None:
    """Jinja passes a filter its context or environment when the filter is marked so: the
    wrapper keeps the mark."""
    mark = getattr(filt, "jinja_pass_arg", None)
    if mark is not None:
        guarded.jinja_pass_arg = mark  # type: ignore[attr-defined]


def _guard_replace(filt: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(eval_ctx: Any, s: Any, old: Any, new: Any, count: Any = None) -> Any:
        text, old_s, new_s = str(s), str(old), str(new)
        times = text.count(old_s) if old_s else len(text) + 1
        if isinstance(count, int) and count >= 0:
            times = min(times, count)
        _check_size(len(text) + times * max(0, len(new_s) - len(old_s)), "filter replace")
        return filt(eval_ctx, s, old, new, count)

    _keep_pass_arg(filt, guarded)
    return guarded


def _guard_format(filt: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(value: Any, *args: Any, **kwargs: Any) -> Any:
        if _WIDTH.search(str(value)):
            raise RenderLimitError("filter format with a field width of a million or more")
        return filt(value, *args, **kwargs)

    _keep_pass_arg(filt, guarded)
    return guarded


class BoundedEnvironment(SandboxedEnvironment):
    """Jinja2's sandbox with Accord's time and size budgets (see the module docstring).

    Render with `render_bounded`; a template compiled by `compile_bounded` counts its loop
    iterations.
    """

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals[_LOOP_GUARD] = _bounded_loop
        # wordwrap is passed the environment first, then the text, then the width.
        for name, width_at in (("center", 1), ("indent", 1), ("wordwrap", 2)):
            self.filters[name] = _guard_width(name, self.filters[name], width_at)
        self.filters["replace"] = _guard_replace(self.filters["replace"])
        self.filters["format"] = _guard_format(self.filters["format"])

    def call(
        __self,
        __context: Context,
        __obj: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """A call from the template: counted as a step (see `MAX_STEPS`)."""
        _step()
        # `"{:>999999999}".format(x)` reaches here as the sandbox's wrapper of str.format.
        target = getattr(__obj, "__wrapped__", __obj)
        owner = getattr(target, "__self__", None)
        is_format = getattr(target, "__name__", "") in ("format", "format_map")
        if is_format and isinstance(owner, str) and _WIDTH.search(owner):
            raise RenderLimitError("str.format with a field width of a million or more")
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """``*`` and ``**`` are checked for the size of what they make, ``%`` for its widths."""
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(times, int) and _sized(seq):
                    _check_size(_sized(seq) * times, "the * operator")
        elif operator == "**" and isinstance(right, int) and abs(right) > 1000:
            raise RenderLimitError(f"the ** operator with the exponent {right}")
        elif operator == "%" and isinstance(left, str) and _WIDTH.search(left):
            raise RenderLimitError("the % operator with a field width of a million or more")
        return super().call_binop(context, operator, left, right)

    def compile_bounded(self, source: str) -> Any:
        """`source` as a template whose ``for`` loops count their iterations."""
        tree = self.parse(source)
        for loop in tree.find_all(nodes.For):
            guard = nodes.Call(nodes.Name(_LOOP_GUARD, "load"), [loop.iter], [], None, None)
            guard.set_lineno(loop.lineno)
            guard.set_environment(self)
            loop.iter = guard
        return self.from_string(tree)


def render_bounded(template: Any, values: dict[str, Any]) -> str:
    """Render a template compiled by `BoundedEnvironment.compile_bounded` within the budgets.

    Raises:
        RenderLimitError: over the time, step or size budget.
    """
    token = _BUDGET.set(_Budget(deadline=time.monotonic() + MAX_RENDER_S))
    try:
        parts: list[str] = []
        size = 0
        for chunk in template.generate(**values):
            size += len(chunk)
            _check_size(size, "the template")
            parts.append(chunk)
        return "".join(parts)
    finally:
        _BUDGET.reset(token)
