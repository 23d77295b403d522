"""Issue 25: ``--dry-run`` refuses what a real run refuses, and config errors that can be known
before play stop a run before its first game (exit 2, nothing played) instead of failing every
game."""

from __future__ import annotations

from pathlib import Path

import pytest

QUICK = ["run", "negotiation", "-o", "rounds=1", "--games", "2"]


def _files(tmp_path: Path) -> dict[str, Path]:
    variants = tmp_path / "variants"
    variants.mkdir()
    bad_rate = tmp_path / "fault.yaml"
    bad_rate.write_text(
        "defaults: {game: negotiation, options: {rounds: 1}}\n"
        "batches: [{name: a, agents: [{model: mock/schema, options: {fault_rate: 2}}, greedy]}]\n"
    )
    variant = tmp_path / "variant.yaml"
    variant.write_text(
        "defaults:\n  game: calendar\n"
        f"  options: {{prompt_variant: nosuch, prompt_variant_dir: '{variants}'}}\n"
        "  agents: [mock/schema, mock/schema, mock/schema]\n"
        "batches: [{name: a}]\n"
    )
    cache_file = tmp_path / "cache.txt"
    cache_file.write_text("not a folder")
    return {"fault": bad_rate, "variant": variant, "cache": cache_file}


def _prompts(tmp_path: Path, cli, tail: str) -> Path:
    """A prompt folder whose intro template ends with `tail`."""
    dump = tmp_path / "all-prompts"
    assert cli.invoke("prompts", "negotiation", "--dump", dump).exit_code == 0
    folder = tmp_path / f"prompts-{abs(hash(tail))}"
    folder.mkdir()
    (folder / "intro.j2").write_text((dump / "intro.j2").read_text() + tail)
    return folder


CASES = {
    "unknown provider": (["--model", "nope/x"], "Unknown model provider"),
    "fault_rate: 2": (["FILE:fault"], "fault_rate"),
    "missing prompt variant": (["FILE:variant"], "nosuch.md"),
    "estimate from a missing folder": (
        ["--model", "mock/schema", "--estimate-from", "MISSING"],
        "not a run directory",
    ),
    "--cpus 0": (["--model", "mock/schema", "--cpus", "0"], "--cpus"),
    "--cache is a file": (["--model", "mock/schema", "--cache", "FILE:cache"], "is a file"),
    "template loops too long": (["--model", "mock/schema", "--prompts", "LOOPS"], "loop steps"),
    "template makes a huge prompt": (
        ["--model", "mock/schema", "--prompts", "HUGE"],
        "characters, over the",
    ),
    "template does not render": (
        ["--model", "mock/schema", "--prompts", "BROKEN"],
        "could not be rendered",
    ),
}


@pytest.mark.parametrize("dry", [True, False], ids=["dry run", "real run"])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_known_bad_input_stops_before_the_first_game(
    tmp_path: Path, cli, case: str, dry: bool
) -> None:
    files = _files(tmp_path)
    tails = {
        "LOOPS": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        "HUGE": "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
        "BROKEN": "{{ 1 / 0 }}",
    }
    args: list[object] = []
    for arg in CASES[case][0]:
        if arg.startswith("FILE:"):
            args.append(files[arg[5:]])
        elif arg == "MISSING":
            args.append(tmp_path / "missing-run")
        elif arg in tails:
            args.append(_prompts(tmp_path, cli, tails[arg]))
        else:
            args.append(arg)
    out = tmp_path / "out"
    if args and isinstance(args[0], Path) and args[0].suffix == ".yaml":
        command = ["run", args[0], *args[1:]]
    else:
        command = [*QUICK, *args]
    result = cli.invoke(*command, "--out", out, *(["--dry-run"] if dry else []))
    cli.error(result, CASES[case][1])
    assert not (out / "traces").exists() or not any((out / "traces").iterdir()), "no game played"


def test_a_dry_run_still_prices_a_plan_without_api_keys(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli.invoke(*QUICK, "--model", "openai/gpt-5.4-mini", "--dry-run", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "Would play 2 games" in result.output
