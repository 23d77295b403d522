"""Issue 12 items 5 and 6: hostile experiment files, traces and flags give one clear error.

Every case ends with exit code 2 and a line naming the file or flag and what to do, or (for
plans) is refused before any game is built, so memory never grows without output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.core.errors import ConfigError
from accord.runner.config import DEFAULT_MAX_GAMES, load_experiment
from accord.traces.io import read_trace

BASE = "defaults:\n  game: negotiation\n  agents: [cooperative, greedy]\n"

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)

# (name, file content as bytes, text the error must contain)
BAD_FILES = [
    ("not utf-8", b"name: caf\xe9\n" + BASE.encode(), "not UTF-8"),
    ("huge integer", (BASE + "  seed: " + "9" * 5000 + "\n").encode(), "smaller number"),
    ("deep nesting", (BASE + "  options: " + "[" * 5000 + "]" * 5000 + "\n").encode(), "nest"),
    ("duplicate key", (BASE + "  games: 2\n  games: 3\n").encode(), "duplicate key 'games'"),
    ("alias bomb", None, "expands to over"),
    ("billion laughs", (BASE.replace("defaults", "x_bomb") + BOMB).encode(), "expands to over"),
    ("recursive alias", b"defaults: &d\n  game: negotiation\n  loop: *d\n", "recursive"),
    ("recursive list", b"x_loop: &l [1, *l]\n" + BASE.encode(), "recursive"),
    ("games: true", (BASE + "  games: true\n").encode(), "defaults.games"),
    ("games: 0", (BASE + "  games: 0\n").encode(), "defaults.games"),
    ("games: 10**9", (BASE + "  games: 1000000000\n").encode(), "over the limit"),
    ("ten-million-point grid", None, "over the limit"),
    ("secret in extra_params", None, "api_key_env"),
    ("a list", b"- 1\n- 2\n", "must hold a mapping"),
    ("not yaml", b"defaults: [\n", "not valid YAML"),
]


def _grid(points_per_key: int = 10, keys: int = 7) -> bytes:
    values = "[" + ", ".join(str(i) for i in range(points_per_key)) + "]"
    return (BASE + "grid:\n" + "".join(f"  options.k{i}: {values}\n" for i in range(keys))).encode()


@pytest.mark.parametrize(("case", "content", "needle"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_experiment_files_are_one_clear_error(tmp_path: Path, cli, case, content, needle):
    if case == "ten-million-point grid":
        content = _grid()
    if case == "secret in extra_params":
        content = (
            BASE.replace(
                "[cooperative, greedy]",
                "[{model: openai/x, options: {extra_params: {api_token: abc12345}}}, greedy]",
            )
        ).encode()
    if case == "alias bomb":  # the bomb inside extra_params, where a model's options go
        seat = "{model: mock/schema, options: {extra_params: *i}}"
        bomb = "".join(f"  {line}\n" for line in BOMB.splitlines())
        content = ("x_bomb:\n" + bomb + BASE.replace("cooperative", seat)).encode()
    path = tmp_path / "exp.yaml"
    path.write_bytes(content)
    result = cli.invoke("run", path, "--out", tmp_path / "out", "--dry-run")
    cli.error(result, needle)
    assert not (tmp_path / "out").exists()


def test_a_grid_is_counted_before_it_is_built(tmp_path: Path) -> None:
    keys = "".join(f"  options.k{i}: [{', '.join(map(str, range(10)))}]\n" for i in range(7))
    path = tmp_path / "grid.yaml"
    path.write_text(BASE + "grid:\n" + keys)
    exp = load_experiment(path)
    from accord.runner.config import expand

    with pytest.raises(ConfigError, match="10,000,000 games"):
        expand(exp)


def test_the_game_limit_can_be_raised(tmp_path: Path, monkeypatch) -> None:
    from accord.runner.config import expand

    path = tmp_path / "exp.yaml"
    path.write_text(BASE + "  games: 30\nmax_games: 20\n")
    with pytest.raises(ConfigError, match="over the limit of 20"):
        expand(load_experiment(path))
    path.write_text(BASE + "  games: 30\nmax_games: 60\n")
    assert len(expand(load_experiment(path))) == 30
    monkeypatch.setenv("ACCORD_MAX_GAMES", "10")
    path.write_text(BASE + "  games: 30\n")
    with pytest.raises(ConfigError, match="ACCORD_MAX_GAMES"):
        expand(load_experiment(path))
    assert DEFAULT_MAX_GAMES >= 100_000


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(BASE + "# " + "x" * (5 * 1024 * 1024) + "\n")
    with pytest.raises(ConfigError, match="over the 4 MB limit"):
        load_experiment(path)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_any_bytes_as_an_experiment_file_load_or_fail_cleanly(tmp_path: Path, data) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(data)
    try:
        load_experiment(path)
    except ConfigError as exc:
        assert str(exc).strip()


@settings(max_examples=40, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids),
        max_leaves=20,
    )
)
def test_any_yaml_value_in_an_experiment_loads_or_fails_cleanly(value) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "exp.yaml"
        path.write_text(yaml.safe_dump({"defaults": {"game": "negotiation", "games": value}}))
        try:
            experiment = load_experiment(path)
        except ConfigError as exc:
            assert str(exc).strip(), "a refusal says what is wrong"
        else:
            assert experiment.defaults.games == value  # loaded only when the value is usable


# -- traces ---------------------------------------------------------------------------------


def _trace_variants(good: dict) -> dict[str, tuple[bytes, str]]:
    deep = json.dumps({**good, "final_state": {"x": "DEEP"}})
    deep = deep.replace('"DEEP"', "[" * 5000 + "]" * 5000)
    return {
        "not utf-8": (json.dumps(good).encode().replace(b'"run"', b'"r\xffn"'), "not UTF-8"),
        "huge integer": (
            json.dumps(good).replace('"seed": 0', '"seed": ' + "7" * 5000).encode(),
            "not valid JSON",
        ),
        "deep nesting": (deep.encode(), "nest"),
        "events as a dict": (json.dumps({**good, "events": {"a": 1}}).encode(), "field events"),
        "not json": (b"{", "not valid JSON"),
        "a list": (b"[]", "schema_version"),
        "wrong version": (json.dumps({**good, "schema_version": 99}).encode(), "schema_version"),
    }


def test_hostile_traces_are_one_clear_error_in_every_command(run_dir: Path, tmp_path, cli):
    good = json.loads((run_dir / "traces" / "b-g000.json").read_text())
    good["seed"] = 0
    for case, (content, needle) in _trace_variants(good).items():
        path = tmp_path / f"{case.replace(' ', '_')}.json"
        path.write_bytes(content)
        with pytest.raises(ConfigError, match=needle):
            read_trace(path)
        for args in (
            ["replay", path, "--out", tmp_path / "replays"],
            ["fork", path, "--at", "1", "--seat", "0", "--agent", "greedy"],
        ):
            cli.error(cli.invoke(*args), str(path.name))


@pytest.mark.parametrize(
    "fork",
    [{"parent": "x"}, {"parent": "x", "round": -1, "turn": 0, "seat": 0, "agent": {}}, "bad",
     {"parent": "x", "round": 1, "turn": 0, "seat": 7, "agent": {"agent": "greedy"}}],
)  # fmt: skip
def test_a_bad_fork_label_is_one_clear_error(run_dir: Path, cli, fork) -> None:
    path = run_dir / "traces" / "b-g000.json"
    data = json.loads(path.read_text())
    data["run"]["fork"] = fork
    path.write_text(json.dumps(data))
    cli.error(cli.invoke("replay", path), "run.fork")


# -- flags ----------------------------------------------------------------------------------

QUICK = ["run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1"]
FLAG_CASES = [
    (["--games", "0"], "--games"),
    (["--games", "-1"], "--games"),
    (["--model", "mock/schema", "--temperature", "-1"], "temperature"),
    (["--model", "mock/schema", "--temperature", "nan"], "temperature"),
    (["--model", "mock/schema", "--max-tokens", "0"], "max_tokens"),
    (["--max-cost", "nan"], "--max-cost"),
    (["--max-cost", "-1"], "--max-cost"),
    (["--max-cost", "inf"], "--max-cost"),
    (["--concurrency", "0"], "--concurrency"),
    (["-o", "seed=" + "9" * 5000], "smaller number"),
    (["-o", "a..b=1"], "empty part"),
    (["--games", "200000"], "over the limit"),
]


@pytest.mark.parametrize(
    ("extra", "needle"), FLAG_CASES, ids=[" ".join(c[0])[:30] for c in FLAG_CASES]
)
def test_bad_flags_are_one_clear_error(tmp_path: Path, cli, extra, needle) -> None:
    args = [a for a in QUICK if not (extra[0] == "--model" and a in ("--agents",))]
    if extra[0] == "--model":
        args = ["run", "negotiation", "-o", "rounds=1"]
    cli.error(cli.invoke(*args, *extra, "--out", tmp_path / "out"), needle)


def test_out_naming_a_file_or_an_unwritable_place(tmp_path: Path, cli) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    cli.error(cli.invoke(*QUICK, "--out", afile), "is a file")
    cli.error(cli.invoke(*QUICK, "--out", "/proc/x"), "/proc/x")
    assert afile.read_text() == "x"


@pytest.mark.parametrize("port", ["-1", "0", "70000", "x"])
def test_serve_refuses_bad_ports(run_dir: Path, cli, port: str) -> None:
    cli.error(cli.invoke("serve", run_dir, "--port", port), "--port")


def test_a_dry_run_refuses_an_unknown_agent(tmp_path: Path, cli) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(BASE.replace("greedy", "nobody"))
    cli.error(cli.invoke("run", path, "--out", tmp_path / "out", "--dry-run"), "nobody")
    assert not (tmp_path / "out").exists()


def test_an_experiment_name_never_becomes_a_path_outside_runs(
    tmp_path: Path, cli, monkeypatch
) -> None:
    (tmp_path / "work").mkdir()
    path = tmp_path / "work" / "exp.yaml"
    path.write_text(BASE + "  games: 1\n  options: {rounds: 1}\nname: ../../escape\n")
    monkeypatch.chdir(tmp_path / "work")
    result = cli.invoke("run", path)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()
    assert (tmp_path / "work" / "runs" / "escape" / "summary.json").is_file()


def test_serve_on_a_busy_port_is_one_clear_error_before_anything_is_announced(
    run_dir: Path, cli
) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = cli.invoke("serve", run_dir, "--port", port)
    cli.error(result, "already in use", f"--port {port + 1}")
    assert "serving" not in result.output
