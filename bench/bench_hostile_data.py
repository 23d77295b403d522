"""Issue 25's hostile cases for data and results, secrets, files and processes, and
``--dry-run``: how many end in a clear error, a traceback, a hang, or are accepted, and how
many of those outcomes are wrong (printed as a table, never asserted).

The same classification as ``bench_hostile.py`` (whose `Bench` and `Case` it uses): a case
says whether it should be refused or handled, and may carry a harm check (a cache answering
for another server, stale results, a model asked again, a secret or an encoding of it on disk,
a folder made outside ``--out``, a lock file anyone can read, a file outside the run read
back). Local chat servers on 127.0.0.1 stand in for hosted models. ``--src DIR`` measures
another checkout's ``src``: that is how the before/after counts of issue 25 were made.

Run:  python bench/bench_hostile_data.py [--src path/to/src] [--jobs 2] [--list]
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hostile import Bench, Case

KEY = "zz-echo-key-0123456789abcdef"
"""The key the echo server sends back as hex and base64 (held in ``BENCH_ECHO``)."""
PASSWORD = "Pa55w0rd-q7z9x"
QUICK = ["run", "negotiation", "-o", "rounds=1", "--games", "2"]
LOOP = "{% for i in range(100000) %}{% for j in range(N) %}BODY{% endfor %}{% endfor %}"


def _server(reply: Callable[[str], tuple[int, str]]) -> str:
    """A chat-completions server on 127.0.0.1 answering with ``reply(authorization)``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            status, content = reply(self.headers.get("Authorization", ""))
            payload = (
                {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 5},
                }
                if status == 200
                else {"error": {"message": content}}
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def _speech(text: str) -> str:
    return json.dumps({"thinking": text, "speech": text, "decision": None})


def _echo(auth: str) -> tuple[int, str]:
    key = auth.removeprefix("Bearer ").encode()
    return 200, _speech(f"hex {key.hex()} b64 {base64.b64encode(b'x' + key).decode()}")


@contextmanager
def _held(run: Path) -> Iterator[None]:
    """Hold `run`'s lock from this process, as a live run would."""
    run.mkdir(parents=True, exist_ok=True)
    fd = os.open(run / ".accord.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _files_hold(tmp: Path, *needles: bytes) -> bool:
    for path in tmp.rglob("*"):
        if path.is_file() and not path.name.endswith(".yaml"):
            data = path.read_bytes()
            if any(n in data for n in needles):
                return True
    return False


def build(bench: Bench) -> Path:
    """Fill `bench.cases`; return the run directory whose lock a live run must hold."""
    tmp = bench.tmp
    code, out = bench.accord(
        ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2", "-o", "rounds=2",
         "--out", str(tmp / "run")], 300)  # fmt: skip
    code2, out2 = bench.accord(
        ["run", "negotiation", "--model", "mock/schema", "--games", "1", "-o", "rounds=1",
         "--out", str(tmp / "mrun")], 300)  # fmt: skip
    if code != 0 or code2 != 0:
        raise SystemExit(f"could not make the runs to attack: {out[-300:]} {out2[-300:]}")
    bench.accord(["prompts", "negotiation", "--dump", str(tmp / "prompts-all")], 60)
    intro = (tmp / "prompts-all" / "intro.j2").read_text()
    good = json.loads(sorted((tmp / "run" / "traces").glob("*.json"))[0].read_text())
    n = iter(range(1000))

    def copy_run(src: str = "run") -> Path:
        target = tmp / f"{src}-{next(n):03d}"
        shutil.copytree(tmp / src, target)
        return target

    def add(
        group: str,
        name: str,
        args: list[object],
        want: str = "refuse",
        *,
        harm: Callable[[str], bool] | None = None,
        setup: Callable[[], None] | None = None,
        timeout: float = 90.0,
    ) -> None:
        strs = [str(a) for a in args]
        bench.cases.append(Case(group, name, strs, want, harm=harm, setup=setup, timeout=timeout))

    # -- data and results -------------------------------------------------------------------
    answering = _server(lambda auth: (200, _speech("hi")))
    refusing = _server(lambda auth: (401, "invalid api key"))
    cache = tmp / "cache"
    model = ["--model", "openai-compatible/default", "-M", "max_retries=0"]
    bench.accord([*QUICK, *model, "--model-base-url", answering, "--cache", str(cache),
                  "--out", str(tmp / "cache-first")], 120)  # fmt: skip
    second = tmp / "cache-second"
    add("data", "cache shared by another server",
        [*QUICK, *model, "--model-base-url", refusing, "--cache", cache, "--out", second],
        "handle", harm=lambda out: '"failed": 0' in _read(second / "summary.json"))  # fmt: skip

    resumed = copy_run()

    def old_game() -> None:
        sorted((resumed / "traces").glob("*.json"))[-1].unlink()
        (resumed / "traces" / "old.json").write_text(
            json.dumps({**good, "game_id": "negotiation-v0", "trace_id": "old"})
        )

    add("data", "resume past an uninstalled game's trace",
        ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2", "-o",
         "rounds=2", "--out", resumed, "--resume"], "handle", setup=old_game,
        harm=lambda out: '"games": 2' not in _read(resumed / "summary.json"))  # fmt: skip

    for command in (["report"], ["leaderboard"], ["value"], ["export"],
                    ["query", "SELECT count(*) FROM games"],
                    ["judge", "--model", "mock/schema"]):  # fmt: skip
        run = copy_run()
        (run / "traces" / "broken.json").write_text('{"schema_version": 2, "trace_id": ')
        args = [command[0], run, *command[1:]]
        if command[0] == "judge":
            args += ["--out", run / "judged"]
        add("data", f"{command[0]} with one unreadable trace", args, "handle",
            harm=lambda out: "broken.json" not in out)  # fmt: skip

    damaged = copy_run("mrun")
    trace = next((damaged / "traces").glob("*.json"))
    data = json.loads(trace.read_text())
    data["transcripts"] = {}
    trace.write_text(json.dumps(data))
    add("data", "replay of a damaged trace", ["replay", trace],
        harm=lambda out: (damaged / "replays").exists())  # fmt: skip

    # -- secrets ------------------------------------------------------------------------------
    def leaked(out: str) -> bool:
        return PASSWORD in out or _files_hold(tmp / "secret-runs", PASSWORD.encode())

    secret_cases = {
        "--model-base-url user:password@": ["--model-base-url",
                                            f"http://alice:{PASSWORD}@127.0.0.1:9/v1"],
        "--model-base-url ?api_key=": ["--model-base-url",
                                       f"http://127.0.0.1:9/v1?api_key={PASSWORD}"],
        "-M Authorization header": ["--model-base-url", "http://127.0.0.1:9/v1", "-M",
                                    f"extra_params.headers.Authorization=Bearer {PASSWORD}"],
        "-M password": ["--model-base-url", "http://127.0.0.1:9/v1", "-M",
                        f"extra_params.password={PASSWORD}"],
        "-M mapping with a key": ["--model-base-url", "http://127.0.0.1:9/v1", "-M",
                                  f"extra_params={{headers: {{X-Api-Key: {PASSWORD}}}}}"],
    }  # fmt: skip
    for name, extra in secret_cases.items():
        out_dir = tmp / "secret-runs" / f"r{next(n):03d}"
        add("secrets", name, [*QUICK, *model, *extra, "--out", out_dir], harm=leaked)

    plain = tmp / "lock-mode"

    def others_read(out: str) -> bool:
        return (os.stat(plain / ".accord.lock").st_mode & 0o077) != 0

    add("secrets", "lock file readable by others",
        ["run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1", "--out", plain],
        "handle", harm=others_read)  # fmt: skip

    echo = _server(_echo)
    echoed = tmp / "echo-run"
    b64 = base64.b64encode(b"x" + KEY.encode()).decode()[2:-2].encode()
    add("secrets", "hex and base64 echoes of a key",
        [*QUICK, "--model", "openai-compatible/echo", "--model-base-url", echo, "-M",
         "api_key_env=BENCH_ECHO", "-M", "max_retries=0", "--cache", tmp / "echo-cache",
         "--out", echoed], "handle",
        harm=lambda out: _files_hold(tmp, KEY.encode().hex().encode(), b64))  # fmt: skip

    # -- files and processes ----------------------------------------------------------------
    for bad in ("../../escaped-x", str(tmp / "abs-x")):
        run = copy_run()
        trace = run / "traces" / sorted(p.name for p in (run / "traces").iterdir())[0]
        trace.write_text(json.dumps({**good, "game_id": bad}))
        add("files", f"report with game_id {bad[:12]}", ["report", run, "--out", run / "a" / "b"],
            "handle", harm=lambda out: (tmp / "abs-x").exists() or (tmp / "escaped-x").exists()
            or (tmp.parent / "escaped-x").exists())  # fmt: skip

    locked = copy_run()
    traces_before = len(list((locked / "traces").iterdir()))
    replay_trace = sorted((locked / "traces").glob("*.json"))[0]
    add("files", "replay --out RUN/traces of a live run",
        ["replay", replay_trace, "--out", locked / "traces"],
        harm=lambda out: len(list((locked / "traces").iterdir())) != traces_before)  # fmt: skip
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    add("files", "serve --play --out a live run",
        ["serve", "--play", "--out", locked, "--port", port], timeout=15.0)  # fmt: skip

    stale = tmp / "stale"
    stale.mkdir()
    (stale / ".accord.lock").write_text(json.dumps({"pid": 999999, "host": "gone"}))
    add("files", "stale lock taken over",
        ["run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1", "--out", stale],
        "handle", harm=lambda out: "taking over" not in out)  # fmt: skip

    bombs = {
        "nested loops": LOOP.replace("N", "100000").replace("BODY", ""),
        "100 MB prompt": LOOP.replace("N", "1000").replace("BODY", "x"),
        "string times 10^8": "{{ 'x' * 100000000 }}",
        "center(10^8)": "{{ 'x'|center(100000000) }}",
        "growing replace": "{{ ('x' * 1000)|replace('x', 'y' * 100000) }}",
        "exponential macro": "{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}"
        "{% endmacro %}{{ f(40) }}",
    }
    for name, tail in bombs.items():
        folder = tmp / f"prompts-{next(n):03d}"
        folder.mkdir()
        (folder / "intro.j2").write_text(intro + tail)
        add("files", f"template: {name}",
            [*QUICK, "--model", "mock/schema", "--prompts", folder, "--out", folder / "out"],
            timeout=60.0)  # fmt: skip
    linked = tmp / "prompts-linked"
    linked.mkdir()
    (linked / "intro.j2").symlink_to(tmp / "prompts-all" / "intro.j2")
    add(
        "files",
        "template linked from outside",
        [*QUICK, "--model", "mock/schema", "--prompts", linked, "--out", linked / "out"],
    )
    run = copy_run()
    outside = tmp / "outside-trace.json"
    outside.write_text(json.dumps({**good, "trace_id": "outside"}))
    (run / "traces" / "outside.json").symlink_to(outside)
    add("files", "trace linked from outside traces/",
        ["query", run, "SELECT count(*) AS n FROM games", "--format", "csv"], "handle",
        harm=lambda out: "\n3\n" in f"\n{out}")  # fmt: skip

    # -- dry run and knowable config errors --------------------------------------------------
    (tmp / "variants").mkdir()
    fault = tmp / "fault.yaml"
    fault.write_text(
        "defaults: {game: negotiation, options: {rounds: 1}}\n"
        "batches: [{name: a, agents: [{model: mock/schema, options: {fault_rate: 2}}, greedy]}]\n"
    )
    variant = tmp / "variant.yaml"
    variant.write_text(
        "defaults:\n  game: calendar\n"
        f"  options: {{prompt_variant: nosuch, prompt_variant_dir: '{tmp / 'variants'}'}}\n"
        "  agents: [mock/schema, mock/schema, mock/schema]\nbatches: [{name: a}]\n"
    )
    broken = tmp / "prompts-broken"
    broken.mkdir()
    (broken / "intro.j2").write_text(intro + "{{ 1 / 0 }}")
    afile = tmp / "afile.txt"
    afile.write_text("x")
    for dry in (True, False):
        flag = ["--dry-run"] if dry else []
        kind = "dry run" if dry else "real run"
        mock = [*QUICK, "--model", "mock/schema"]
        for name, args in {
            "unknown provider": [*QUICK, "--model", "nope/x"],
            "fault_rate: 2": ["run", fault],
            "missing prompt variant": ["run", variant],
            "--estimate-from a missing folder": [*mock, "--estimate-from", tmp / "none"],
            "--cpus 0": [*mock, "--cpus", "0"],
            "template does not render": [*mock, "--prompts", broken],
            "--cache is a file": [*mock, "--cache", afile],
        }.items():
            out_dir = tmp / f"dry-{next(n):03d}"
            add("dry run", f"{kind}: {name}", [*args, "--out", out_dir, *flag],
                harm=lambda out, d=out_dir: (d / "traces").is_dir()
                and any((d / "traces").iterdir()))  # fmt: skip
    return locked


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parent.parent / "src"
    parser.add_argument("--src", type=Path, default=here, help="the src folder of Accord to test")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--list", action="store_true", help="print every case's outcome")
    args = parser.parse_args()
    os.environ["BENCH_ECHO"] = KEY
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(src=args.src.resolve(), tmp=Path(tmp))
        live = build(bench)
        with _held(live), ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(bench.play, bench.cases))
    groups = list(dict.fromkeys(o.case.group for o in outcomes))
    kinds = ("clear error", "traceback", "hang", "accepted")
    print(f"source: {args.src}")
    print(f"{'group':<12}{'tried':>7}" + "".join(f"{k:>13}" for k in kinds) + f"{'wrong':>8}")
    for group in [*groups, "all"]:
        rows = [o for o in outcomes if group in ("all", o.case.group)]
        count = Counter(o.kind for o in rows)
        print(f"{group:<12}{len(rows):>7}" + "".join(f"{count[k]:>13}" for k in kinds)
              + f"{sum(o.wrong for o in rows):>8}")  # fmt: skip
    for o in outcomes:
        if args.list or o.wrong:
            mark = "WRONG" if o.wrong else "ok"
            print(f"  {mark:<5} {o.case.group:<9} {o.case.name:<42} {o.kind:<12} "
                  f"exit {o.code}  {o.detail[:100]}")  # fmt: skip


if __name__ == "__main__":
    main()
