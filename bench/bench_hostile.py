"""Hostile input against the command line: how many cases end in a clear error, a traceback,
a hang, or are accepted (printed as a table, never asserted).

Each case is one `accord` command in a fresh process (experiment files through
``run --dry-run``, command-line flags, hand-edited traces through ``replay`` and ``fork``, SQL
through ``query``, damaged run directories through ``run --resume``). A case is classified by
what the person sees:

- **clear error**: exit code 2 and no traceback;
- **traceback**: a Python traceback in the output, or death by a signal;
- **hang**: no answer within the time limit (the process is killed);
- **accepted**: exit code 0 or 1 (the command did its work).

Every case also says what it should do (``refuse`` or ``handle``) and may carry a harm check
(a file written outside the output directory, a file outside the run read back, a secret
written to disk): "wrong" counts accepted cases that should have been refused or that did harm,
plus refused cases that should have been handled. The cases are those of issue 12 ("Hardening"),
kept in step with ``tests/hostile/``.

Pass ``--src DIR`` to measure another checkout's ``src`` (e.g. an older commit in a git
worktree) with this same catalogue: that is how the before/after table of the issue was made.
Each process gets a 3 GB address-space limit, so a case that would exhaust memory fails fast.

Run:  python bench/bench_hostile.py [--src path/to/src] [--jobs 2] [--only sql]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECRET = "zz-hostile-secret-4711"
"""A key-like value that must never reach a file (held in the variable ``BENCH_KEY``)."""


@dataclass
class Case:
    """One hostile command."""

    group: str
    name: str
    args: list[str]
    want: str = "refuse"  # or "handle"
    harm: Callable[[str], bool] | None = None
    """Given the output: whether the command did something it must not."""
    setup: Callable[[], None] | None = None
    timeout: float = 90.0
    path: list[str] = field(default_factory=list)
    """Folders put before Accord's ``src`` on ``PYTHONPATH`` (fake plugin packages)."""


@dataclass
class Outcome:
    case: Case
    kind: str
    code: int | None
    wrong: bool
    detail: str = ""


@dataclass
class Bench:
    src: Path
    tmp: Path
    cases: list[Case] = field(default_factory=list)

    def accord(
        self, args: list[str], timeout: float, path: list[str] | None = None
    ) -> tuple[int | None, str]:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([*(path or []), str(self.src)]),
            "COLUMNS": "200",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "BENCH_KEY": SECRET,
            "NO_COLOR": "1",
        }

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

        try:
            proc = subprocess.run(
                [sys.executable, "-m", "accord", *args],
                capture_output=True,
                text=True,
                errors="replace",
                env=env,
                cwd=self.tmp,
                timeout=timeout,
                preexec_fn=limit,
            )
        except subprocess.TimeoutExpired:
            return None, ""
        return proc.returncode, proc.stdout + proc.stderr

    def play(self, case: Case) -> Outcome:
        if case.setup is not None:
            case.setup()
        code, out = self.accord(case.args, case.timeout, case.path)
        if code is None:
            kind = "hang"
        elif "Traceback (most recent call last)" in out or code < 0 or code > 2:
            kind = "traceback"
        elif code == 2:
            kind = "clear error"
        else:
            kind = "accepted"
        harmed = kind == "accepted" and case.harm is not None and case.harm(out)
        if case.harm is not None and kind != "accepted" and case.harm(out):
            harmed = True  # harm done before the error (a file written, then a failure)
        wrong = harmed or (
            (case.want == "refuse" and kind != "clear error")
            or (case.want == "handle" and kind != "accepted")
        )
        last = out.strip().splitlines()[-1][:160] if out.strip() else ""
        return Outcome(case, kind, code, wrong, last)


# -- the catalogue ---------------------------------------------------------------------------

BASE = "defaults:\n  game: negotiation\n  agents: [cooperative, greedy]\n"
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


def _seat(options: str) -> str:
    return BASE.replace(
        "[cooperative, greedy]", f"[{{model: openai/x, options: {options}}}, greedy]"
    )


def experiment_files() -> list[tuple[str, bytes, str]]:
    """(name, content, want) of hostile experiment files."""
    grid = "".join(f"  options.k{i}: [{', '.join(map(str, range(10)))}]\n" for i in range(7))
    bomb_seat = "{model: mock/schema, options: {extra_params: *i}}"
    bomb = "".join(f"  {line}\n" for line in BOMB.splitlines())
    files: list[tuple[str, str | bytes, str]] = [
        ("not utf-8", b"name: caf\xe9\n" + BASE.encode(), "refuse"),
        ("NUL byte", BASE + "name: a\x00b\n", "refuse"),
        ("huge integer", BASE + "  seed: " + "9" * 5000 + "\n", "refuse"),
        ("deep nesting", BASE + "  options: " + "[" * 5000 + "]" * 5000 + "\n", "refuse"),
        ("duplicate key", BASE + "  games: 2\n  games: 3\n", "refuse"),
        ("alias bomb in extra_params", "x_bomb:\n" + bomb + BASE.replace("cooperative", bomb_seat),
         "refuse"),
        ("billion laughs", BASE.replace("defaults", "x_bomb") + BOMB, "refuse"),
        ("recursive alias", "defaults: &d\n  game: negotiation\n  loop: *d\n", "refuse"),
        ("recursive list", "x_loop: &l [1, *l]\n" + BASE, "refuse"),
        ("games: true", BASE + "  games: true\n", "refuse"),
        ("games: 0", BASE + "  games: 0\n", "refuse"),
        ("games: -1", BASE + "  games: -1\n", "refuse"),
        ("games: 2.5", BASE + "  games: 2.5\n", "refuse"),
        ("games: 10**9", BASE + "  games: 1000000000\n", "refuse"),
        ("ten-million-point grid", BASE + "grid:\n" + grid, "refuse"),
        ("a list", "- 1\n- 2\n", "refuse"),
        ("not yaml", "defaults: [\n", "refuse"),
        ("empty file", "", "refuse"),
        ("only a comment", "# nothing\n", "refuse"),
        ("unknown game", BASE.replace("negotiation", "chess"), "refuse"),
        ("unknown agent", BASE.replace("greedy", "nobody"), "refuse"),
        ("unknown top-level key", BASE + "gmaes: 3\n", "refuse"),
        ("batches not a list", BASE + "batches: 5\n", "refuse"),
        ("grid value not a list", BASE + "grid:\n  options.ratio: 5\n", "refuse"),
        ("three seats at a two-seat game", BASE.replace("greedy]", "greedy, greedy]"), "refuse"),
        ("ratio out of range", BASE + "  options: {ratio: 7}\n", "refuse"),
        ("negative rounds", BASE + "  options: {rounds: -3}\n", "refuse"),
        ("max_games: -1", BASE + "max_games: -1\n", "refuse"),
        ("name with ../", BASE + "name: ../../escape\n", "handle"),
        ("5 MB file", BASE + "# " + "x" * (5 << 20) + "\n", "refuse"),
        ("literal api_key", _seat("{api_key: sk-abcdef1234567890}"), "refuse"),
        ("extra_params.api_token", _seat("{extra_params: {api_token: abc12345}}"), "refuse"),
        ("extra_params.password", _seat("{extra_params: {password: hunter2hunter2}}"), "refuse"),
        ("Authorization header", _seat("{extra_params: {headers: {Authorization: Bearer a12345}}}"),
         "refuse"),
        ("user:pass@ in base_url", _seat("{base_url: 'http://u:pw12345@127.0.0.1:9/v1'}"),
         "refuse"),
        ("byte-order mark", "\ufeff" + BASE, "handle"),
        ("CRLF line ends", BASE.replace("\n", "\r\n"), "handle"),
        ("unicode batch name", BASE + "batches:\n  - name: négociation-é\n", "handle"),
    ]  # fmt: skip
    return [(n, c if isinstance(c, bytes) else c.encode(), w) for n, c, w in files]


def trace_variants(good: dict[str, object]) -> list[tuple[str, bytes, str]]:
    """(name, content, want) of hand-edited traces."""
    text = json.dumps(good)
    deep = json.dumps({**good, "final_state": {"x": "DEEP"}}).replace(
        '"DEEP"', "[" * 5000 + "]" * 5000
    )
    run = dict(good.get("run") or {})  # type: ignore[call-overload]

    def forked(label: object) -> bytes:
        return json.dumps({**good, "run": {**run, "fork": label}}).encode()

    return [
        ("not utf-8", text.encode().replace(b'"run"', b'"r\xffn"'), "refuse"),
        ("huge integer", text.replace('"seed": 0', '"seed": ' + "7" * 5000).encode(), "refuse"),
        ("deep nesting", deep.encode(), "refuse"),
        ("events as a dict", json.dumps({**good, "events": {"a": 1}}).encode(), "refuse"),
        ("not json", b"{", "refuse"),
        ("a list", b"[]", "refuse"),
        ("wrong schema version", json.dumps({**good, "schema_version": 99}).encode(), "refuse"),
        ("fork label without fields", forked({"parent": "x"}), "refuse"),
        ("fork label a string", forked("bad"), "refuse"),
        ("fork label with seat 7", forked({"parent": "x", "round": 1, "turn": 0, "seat": 7,
                                           "agent": {"agent": "greedy"}}), "refuse"),
    ]  # fmt: skip


SQL = [
    ("read_csv of /etc/passwd", "SELECT * FROM read_csv('/etc/passwd', header=false)", "refuse"),
    ("read_csv_auto", "SELECT * FROM read_csv_auto('/etc/hostname')", "refuse"),
    ("read_text", "SELECT content FROM read_text('/etc/hostname')", "refuse"),
    ("read_blob", "SELECT * FROM read_blob('/etc/hostname')", "refuse"),
    ("glob", "SELECT * FROM glob('/etc/*')", "refuse"),
    ("read_json", "SELECT * FROM read_json('/etc/hostname')", "refuse"),
    ("replacement scan of a path", "SELECT * FROM '/etc/passwd'", "refuse"),
    ("http URL", "SELECT * FROM 'http://127.0.0.1:9/x.csv'", "refuse"),
    ("https URL", "SELECT * FROM read_csv('https://example.invalid/x.csv')", "refuse"),
    ("sqlite_scan", "SELECT * FROM sqlite_scan('{tmp}/x.db', 't')", "refuse"),
    ("postgres_scan", "SELECT * FROM postgres_scan('host=127.0.0.1', 'public', 't')", "refuse"),
    ("text next to the run", "FROM read_text('{run}/../outside.txt')", "refuse"),
    ("INSTALL", "INSTALL httpfs", "refuse"),
    ("LOAD", "LOAD httpfs", "refuse"),
    ("SET external access", "SET enable_external_access = true", "refuse"),
    ("RESET lock", "RESET lock_configuration", "refuse"),
    ("ATTACH", "ATTACH '{tmp}/x.duckdb' AS x", "refuse"),
    ("COPY TO a file", "COPY games TO '{tmp}/leak.csv'", "refuse"),
    ("EXPORT DATABASE", "EXPORT DATABASE '{tmp}/leak'", "refuse"),
    ("EXPLAIN ANALYZE COPY", "EXPLAIN ANALYZE COPY games TO '{tmp}/leak2.csv'", "refuse"),
    ("two statements", "SELECT 1; SELECT 2", "refuse"),
    ("empty statement", "", "refuse"),
    ("syntax error", "SELEC 1", "refuse"),
    ("unknown view", "SELECT * FROM nothing_here", "refuse"),
    ("now()", "SELECT now()", "handle"),
    ("count games", "SELECT count(*) FROM games", "handle"),
    ("join views", "SELECT g.trace_id, count(*) FROM games g JOIN events e USING (trace_id) "
                   "GROUP BY 1", "handle"),
]  # fmt: skip


def build(bench: Bench) -> None:
    tmp = bench.tmp
    code, out = bench.accord(
        ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2", "-o", "rounds=2",
         "--out", str(tmp / "run")], 300)  # fmt: skip
    if code != 0:
        raise SystemExit(f"could not make the run to attack ({code}): {out[-400:]}")
    (tmp / "outside.txt").write_text("outside-the-run\n")
    traces = sorted((tmp / "run" / "traces").glob("*.json"))
    good = json.loads(traces[0].read_text())
    good["seed"] = 0
    quick = ["run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1"]
    leaked = _leak_check(tmp)

    for i, (name, content, want) in enumerate(experiment_files()):
        path = tmp / f"exp{i:02d}.yaml"
        path.write_bytes(content)
        out_dir = ["--out", str(tmp / f"exp-out{i:02d}")]
        harm = None
        if "../" in name:  # the name is a label: the default directory must stay under runs/
            out_dir, harm = [], _names_a_path_outside
        args = ["run", str(path), *out_dir, "--dry-run"]
        bench.cases.append(Case("experiment files", name, args, want, harm=harm))

    flags: list[tuple[str, list[str], str]] = [
        ("--games 0", [*quick, "--games", "0"], "refuse"),
        ("--games -1", [*quick, "--games", "-1"], "refuse"),
        ("--games abc", [*quick, "--games", "abc"], "refuse"),
        ("--games 200000", [*quick, "--games", "200000"], "refuse"),
        ("--temperature -1", ["run", "negotiation", "--model", "mock/schema", "-o", "rounds=1",
                              "--temperature", "-1"], "refuse"),
        ("--temperature nan", ["run", "negotiation", "--model", "mock/schema", "-o", "rounds=1",
                               "--temperature", "nan"], "refuse"),
        ("--max-tokens 0", ["run", "negotiation", "--model", "mock/schema", "-o", "rounds=1",
                            "--max-tokens", "0"], "refuse"),
        ("--max-cost nan", [*quick, "--max-cost", "nan"], "refuse"),
        ("--max-cost -1", [*quick, "--max-cost", "-1"], "refuse"),
        ("--max-cost inf", [*quick, "--max-cost", "inf"], "refuse"),
        ("--concurrency 0", [*quick, "--concurrency", "0"], "refuse"),
        ("--concurrency -5", [*quick, "--concurrency", "-5"], "refuse"),
        ("-o seed=<5000 digits>", [*quick, "-o", "seed=" + "9" * 5000], "refuse"),
        ("-o a..b=1", [*quick, "-o", "a..b=1"], "refuse"),
        ("-o ratio=2", [*quick, "-o", "ratio=2"], "refuse"),
        ("--agents nobody,greedy", ["run", "negotiation", "--agents", "nobody,greedy"], "refuse"),
        ("--executor nope", [*quick, "--executor", "nope"], "refuse"),
        ("--out a file", [*quick, "--out", str(tmp / "outside.txt")], "refuse"),
        ("--out /proc/x", [*quick, "--out", "/proc/x"], "refuse"),
        ("serve --port -1", ["serve", str(tmp / "run"), "--port", "-1"], "refuse"),
        ("serve --port 70000", ["serve", str(tmp / "run"), "--port", "70000"], "refuse"),
        ("serve --port x", ["serve", str(tmp / "run"), "--port", "x"], "refuse"),
        ("serve a missing directory", ["serve", str(tmp / "nothing")], "refuse"),
        ("replay a missing file", ["replay", str(tmp / "nothing.json")], "refuse"),
        ("query a missing directory", ["query", str(tmp / "nothing"), "SELECT 1"], "refuse"),
        ("key in a custom variable", ["run", "negotiation", "--model", "mock/echo", "-o",
                                        "rounds=1", "-M", "api_key_env=BENCH_KEY", "--games", "1",
                                        "--out", str(tmp / "secret-run")], "handle"),
    ]  # fmt: skip
    for name, args, want in flags:
        if args[0] == "run" and "--out" not in args:
            args = [*args, "--out", str(tmp / f"flag-{len(bench.cases)}")]
        harm = leaked if "custom variable" in name else None
        timeout = 20.0 if args[0] == "serve" else 90.0
        bench.cases.append(Case("flags", name, args, want, harm=harm, timeout=timeout))

    for i, (name, content, want) in enumerate(trace_variants(good)):
        path = tmp / f"trace{i:02d}.json"
        path.write_bytes(content)
        for cmd in (["replay", str(path), "--out", str(tmp / "replays")],
                    ["fork", str(path), "--at", "1", "--seat", "0", "--agent", "greedy",
                     "--out", str(tmp / "forks")]):  # fmt: skip
            bench.cases.append(Case("traces", f"{cmd[0]}: {name}", cmd, want))
    for bad in ("../escaped", "a/b"):
        path = tmp / f"id-{bad.replace('/', '_').replace('.', '_')}.json"
        path.write_text(json.dumps({**good, "trace_id": bad}))
        for cmd in (["replay", str(path), "--out", str(tmp / "replays" / "inner")],
                    ["fork", str(path), "--at", "1", "--seat", "0", "--agent", "greedy",
                     "--out", str(tmp / "forks" / "inner")]):  # fmt: skip
            bench.cases.append(
                Case(
                    "traces",
                    f"{cmd[0]}: trace_id {bad}",
                    cmd,
                    "refuse",
                    harm=lambda _o: _escaped(tmp),
                )
            )

    for name, sql, want in SQL:
        text = sql.format(run=tmp / "run", tmp=tmp)

        def harm(out: str, text: str = text) -> bool:
            hostname = Path("/etc/hostname")
            host = hostname.read_text().strip() if hostname.exists() else ""
            wrote = any(tmp.glob("leak*")) or (tmp / "x.duckdb").exists()
            read = "root:" in out or "outside-the-run" in out or (bool(host) and host in out)
            return wrote or read

        bench.cases.append(Case("sql", name, ["query", str(tmp / "run"), text], want, harm=harm))

    # Damaged run directories: the rebuild must keep everything readable.
    def damaged(kind: str) -> Callable[[], None]:
        def make() -> None:
            run = tmp / f"damaged-{kind}"
            if not run.exists():
                bench.accord(["run", "negotiation", "--agents", "cooperative,greedy", "--games",
                              "2", "-o", "rounds=2", "--out", str(run)], 300)  # fmt: skip
            traces = run / "traces"
            if kind == "garbage":
                (traces / "zz-garbage.json").write_text("{not json")
            elif kind == "not utf-8":
                (traces / "zz-bytes.json").write_bytes(b"\xff\xfe\x00")
            elif kind == "symlink out":
                link = traces / "zz-link.json"
                if not link.exists():
                    link.symlink_to(tmp / "outside.txt")
            (run / "summary.json").unlink(missing_ok=True)

        return make

    issue_25(bench, good)

    for kind in ("garbage", "not utf-8", "symlink out"):
        run = tmp / f"damaged-{kind}"
        bench.cases.append(
            Case("run directories", f"resume with a {kind} trace file",
                 ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2", "-o",
                  "rounds=2", "--out", str(run), "--resume"], "handle", setup=damaged(kind),
                 harm=_no_summary(run)))  # fmt: skip


PLUGINS = {
    "nodoc": ("accord.games", "nodoc = nodoc_game:G", "nodoc_game",
              "from accord.games.negotiation.engine import NegotiationGame\n"
              "class G(NegotiationGame):\n    game_id = 'nodoc-v1'\n"),
    "boom": ("accord.models", "boom = boom_prov:build", "boom_prov",
             "def build(model, spec, options):\n    raise RuntimeError('no GPU here')\n"),
    "exit": ("accord.games", "bye = bye_game:G", "bye_game", "import sys\nsys.exit(3)\n"),
    "interrupt": ("accord.games", "kbd = kbd_game:G", "kbd_game", "raise KeyboardInterrupt\n"),
}  # fmt: skip
"""Fake plugin packages of issue 25: group, entry point, module, source."""


def _plugin(tmp: Path, name: str) -> list[str]:
    """A folder holding one fake plugin distribution; returned as a ``PYTHONPATH`` entry."""
    group, entry, module, source = PLUGINS[name]
    root = tmp / f"site-{name}"
    info = root / f"{name}_plugin-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry}\n")
    (root / f"{module}.py").write_text(source)
    return [str(root)]


def issue_25(bench: Bench, good: dict[str, object]) -> None:
    """Issue 25, "Errors that should be one clear line": hand-edited traces through query,
    export, leaderboard and cost; --out / --dir naming a file or /proc; PIVOT; plugins."""
    tmp = bench.tmp

    def damaged_run(name: str, change: Callable[[dict[str, Any]], str | None]) -> Path:
        run = tmp / f"i25-{name}"
        (run / "traces").mkdir(parents=True, exist_ok=True)
        trace = json.loads(json.dumps(good))
        text = change(trace)
        (run / "traces" / "t.json").write_text(text if text is not None else json.dumps(trace))
        return run

    def deep(t: dict[str, Any]) -> str:
        return (
            json.dumps(t)
            .replace('"events": [', '"events": [' + "[" * 100_000, 1)
            .replace('"final_state"', "]" * 100_000 + ', "final_state"', 1)
        )

    events_object = damaged_run("events-object", lambda t: t.update(events={"a": 1}))
    nested = damaged_run("deep", deep)
    no_id = damaged_run("no-id", lambda t: (t.pop("trace_id"), None)[1])
    a_file = tmp / "outside.txt"
    cases: list[tuple[str, list[str], str, Callable[[str], bool] | None]] = [
        ("query: events an object", ["query", str(events_object), "SELECT 1"], "refuse", None),
        ("export: events an object", ["export", str(events_object), "--out", str(tmp / "e1")],
         "refuse", None),
        ("query: 100k-deep nesting", ["query", str(nested), "SELECT 1"], "refuse", None),
        ("export: 100k-deep nesting", ["export", str(nested), "--out", str(tmp / "e2")],
         "refuse", None),
        ("query: no trace_id", ["query", str(no_id), "SELECT 1"], "refuse",
         lambda out: "schema version" in out),
        ("query: PIVOT", ["query", str(tmp / "run"), "PIVOT events ON type USING count(*)"],
         "handle", None),
        ("report --out a file", ["report", str(tmp / "run"), "--out", str(a_file)], "refuse", None),
        ("export --out a file", ["export", str(tmp / "run"), "--out", str(a_file)], "refuse", None),
        ("new game --dir /proc/x", ["new", "game", "meeting", "--dir", "/proc/accord-x"],
         "refuse", None),
        ("new game --dir a file", ["new", "game", "meeting", "--dir", str(a_file)], "refuse",
         None),
    ]  # fmt: skip
    for name, args, want, harm in cases:
        bench.cases.append(Case("issue 25", name, args, want, harm=harm))

    models = tmp / "i25-models"

    def model_run(edit: Callable[[Path], None]) -> Callable[[], None]:
        def make() -> None:
            if not models.exists():
                bench.accord(["run", "negotiation", "--model", "mock/schema", "--games", "2",
                              "-o", "rounds=2", "--out", str(models)], 300)  # fmt: skip
            edit(models / "traces")

        return make

    def seatless(traces: Path) -> None:
        trace = json.loads(sorted(traces.glob("*.json"))[0].read_text())
        trace.update(trace_id="zz-seatless", seats=[])
        (traces / "zz-seatless.json").write_text(json.dumps(trace))

    def bad_model(traces: Path) -> None:
        for path in sorted(traces.glob("*.json")):
            trace = json.loads(path.read_text())
            if trace.get("seats"):
                trace["seats"][0]["model"] = "gpt4"
                path.write_text(json.dumps(trace))
                return

    bench.cases.append(Case("issue 25", "leaderboard: empty seats", ["leaderboard", str(models)],
                            "handle", setup=model_run(seatless)))  # fmt: skip
    bench.cases.append(Case("issue 25", "cost: model not provider/model", ["cost", str(models)],
                            "handle", setup=model_run(bad_model)))  # fmt: skip
    for name, args, want in [
        ("nodoc", ["games"], "handle"),
        ("boom", ["run", "negotiation", "--model", "boom/x", "--games", "1", "--out",
                  str(tmp / "i25-boom")], "refuse"),
        ("exit", ["games"], "handle"),
        ("interrupt", ["games"], "handle"),
    ]:  # fmt: skip
        silent = (lambda out: "negotiation-v2" not in out) if args == ["games"] else None
        bench.cases.append(Case("issue 25", f"plugin: {name}", args, want, harm=silent,
                                path=_plugin(tmp, name)))  # fmt: skip


def _names_a_path_outside(out: str) -> bool:
    return "../" in out


def _no_summary(run: Path) -> Callable[[str], bool]:
    def missing(out: str) -> bool:
        del out
        return not (run / "summary.json").exists()

    return missing


def _escaped(tmp: Path) -> bool:
    """Whether a file named from a hostile trace id landed outside its directory."""
    return any(tmp.rglob("escaped*.json")) or any(tmp.rglob("a/b*.json"))


def _leak_check(tmp: Path) -> Callable[[str], bool]:
    def leaked(out: str) -> bool:
        if SECRET in out:
            return True
        for path in tmp.glob("secret-run/**/*"):
            if path.is_file() and SECRET.encode() in path.read_bytes():
                return True
        return False

    return leaked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parent.parent / "src"
    parser.add_argument("--src", type=Path, default=here, help="the src folder of Accord to test")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--only", help="one group: experiment, flags, traces, sql, run, issue 25")
    parser.add_argument("--list", action="store_true", help="print every case's outcome")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(src=args.src.resolve(), tmp=Path(tmp))
        build(bench)
        cases = [c for c in bench.cases if not args.only or c.group.startswith(args.only)]
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(bench.play, cases))
    groups = list(dict.fromkeys(o.case.group for o in outcomes))
    kinds = ("clear error", "traceback", "hang", "accepted")
    header = f"{'group':<18}{'tried':>7}" + "".join(f"{k:>13}" for k in kinds) + f"{'wrong':>8}"
    print(f"source: {args.src}")
    print(header)
    for group in [*groups, "all"]:
        rows = [o for o in outcomes if group in ("all", o.case.group)]
        count = Counter(o.kind for o in rows)
        print(f"{group:<18}{len(rows):>7}" + "".join(f"{count[k]:>13}" for k in kinds)
              + f"{sum(o.wrong for o in rows):>8}")  # fmt: skip
    for o in outcomes:
        if args.list or o.wrong:
            mark = "WRONG" if o.wrong else "ok"
            print(f"  {mark:<5} {o.case.group:<16} {o.case.name:<36} {o.kind:<12} "
                  f"exit {o.code}  {o.detail[:110]}")  # fmt: skip


if __name__ == "__main__":
    main()
