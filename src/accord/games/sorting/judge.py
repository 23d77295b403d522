"""LLM judge for the one sorting failure mode rules cannot decide (MAS-Bench §5.3).

Convention misalignment: the agents adopt incompatible coordination conventions (for
example one partitions by index, another by value range; or they disagree on who owns which
part, or on what a message format means), which ends in deadlock or mutually inconsistent
submissions. Whether two messages express incompatible conventions depends on what they
mean, so a model reads the game.

One call per failed game: the judge reads every agent's replies round by round (its visible
reasoning and its commands), the submissions against the expected slices and the rule-based
labels of `accord.games.sorting.failures`, and answers ``convention_misalignment`` (true or
false) with a short quotation as evidence. The call goes through `LLMAgent`, so a malformed
verdict gets the exact error and a retry; a judge that never answers validly yields no
verdict for that game (recorded as unjudged, never guessed).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError
from accord.core.gameinfo import JudgeResult, JudgeRun
from accord.core.spec import Action, ActionSpec, JSONSchema, Request
from accord.games.sorting.failures import classify
from accord.games.sorting.outcomes import needs_judge
from accord.models.client import ModelClient
from accord.traces.schema import Trace

_EXCERPT = 600
"""Characters of each reply kept in the transcript."""
_EVIDENCE = 400
"""Longest evidence string accepted."""

VERDICT_SCHEMA: JSONSchema = {
    "type": "object",
    "properties": {
        "convention_misalignment": {"type": "boolean"},
        "evidence": {"type": "string", "maxLength": _EVIDENCE},
    },
    "required": ["convention_misalignment", "evidence"],
}


def system_prompt() -> str:
    """The judge's instructions (our wording of the §5.3 definition)."""
    return "\n\n".join(
        [
            "You review logs of a distributed sorting game for research on multi-agent "
            "coordination. Several agents each hold a few integers; together they must submit "
            "the global ascending order, agent i submitting the i-th slice. They talk only "
            "through messages or a shared key-value store.",
            "Decide one thing: did the agents adopt INCOMPATIBLE COORDINATION CONVENTIONS? "
            "That is, did at least two agents each follow a different rule for how the work "
            "is divided or how information is exchanged (for example one splits by position "
            "in the sorted list while another splits by value ranges; two agents use different "
            "orderings of agent ids; agents expect different message or key formats; one "
            "waits for a coordinator that another never acts as), and did that mismatch "
            "contribute to deadlock or to inconsistent submissions?",
            "Answer true only if the log shows both conventions explicitly (in messages, file "
            "contents or the agents' own reasoning). Answer false when agents share one "
            "convention and fail for another reason (submitting too early, copying a wrong "
            "value, reading an old file, running out of rounds), or when the log is too thin "
            "to tell.",
            'Reply with ONLY a JSON object: {"convention_misalignment": true|false, '
            '"evidence": "<at most 400 characters quoting or paraphrasing the conflicting '
            'conventions, or why there is none>"}',
        ]
    )


def transcript(trace: Trace) -> str:
    """The judge's view of one game: every turn's reply, then the outcome."""
    sc = trace.scenario
    n, k = sc.get("n"), sc.get("k")
    head = (
        f"Game {trace.trace_id}: {n} agents, K = {k}, task {sc.get('task', 'sort')}, "
        f"backend {sc.get('backend')}, condition {sc.get('condition')}."
    )
    out = [head, "Lists: " + "; ".join(f"Agent-{i} {x}" for i, x in enumerate(sc.get("xs", [])))]
    for e in trace.events:
        if e.get("type") == "phase_start":
            out.append(f"\n=== Phase {e.get('phase')} ===")
        elif e.get("type") == "turn":
            text = str(e.get("text") or "").strip()
            if len(text) > _EXCERPT:
                text = text[:_EXCERPT] + " [...]"
            out.append(f"[round {e.get('round')}, Agent-{e.get('seat')}] {text or '(no reply)'}")
    labels = classify(trace)
    subs = trace.final_state.get("submissions", [])
    out.append("\n=== Outcome ===")
    for i, exp in enumerate(sc.get("expected", [])):
        sub = subs[i] if i < len(subs) else None
        verdict = "right" if sub == list(exp) else f"wrong ({labels.get(i, 'other')})"
        out.append(f"Agent-{i}: submitted {sub}, expected {list(exp)}: {verdict}")
    return "\n".join(out)


def parse_verdict(text: str) -> dict[str, Any]:
    """Validate a verdict; `ActionError` says exactly what to fix."""
    from accord.core.json_reply import extract_json_object

    obj, _ = extract_json_object(text)
    flag, evidence = obj.get("convention_misalignment"), obj.get("evidence")
    if not isinstance(flag, bool):
        raise ActionError('"convention_misalignment" must be true or false')
    if not isinstance(evidence, str) or not evidence.strip():
        raise ActionError('"evidence" must be a non-empty string')
    if len(evidence) > _EVIDENCE:
        raise ActionError(f'"evidence" must be at most {_EVIDENCE} characters')
    return {"convention_misalignment": flag, "evidence": evidence.strip()}


async def judge_trace(
    client: ModelClient, trace: Trace, *, seed: int = 0, refused: list[str] | None = None
) -> dict[str, Any] | None:
    """The judge's verdict on one sorting game; ``None`` if it never answered validly (then
    `refused`, if given, gets why each refused reply was refused)."""
    holder: dict[str, dict[str, Any]] = {}

    def parse(text: str) -> Action:
        try:
            holder["v"] = parse_verdict(text)
        except ActionError as exc:
            if refused is not None:
                refused.append(str(exc))
            raise
        return {"ok": True}

    spec = ActionSpec(
        kind="judge",
        parse=parse,
        schema=VERDICT_SCHEMA,
        fallback=lambda: {"ok": False},
        format_hint="Reply with the JSON verdict only.",
    )
    agent = LLMAgent(client, temperature=0.0, seed=seed, session=f"judge/{trace.trace_id}")
    request = Request(seat=0, observation=transcript(trace), spec=spec, system=system_prompt())
    result = await agent.act(request)
    return holder["v"] if result.get("ok") else None


def verdict_row(
    trace: Trace, verdict: dict[str, Any] | None, reason: str | None = None
) -> dict[str, Any]:
    """One row per judged game, beside its rule-based labels; an unjudged game carries why
    the judge's last reply was refused."""
    from accord.games.sorting.report import team

    labels = sorted(set(classify(trace).values()))
    return {
        "trace_id": trace.trace_id,
        "model": team(trace),
        "backend": trace.config.get("backend"),
        "condition": trace.metrics.get("condition"),
        "rule_labels": " ".join(labels),
        "judged": verdict is not None,
        "convention_misalignment": None if verdict is None else verdict["convention_misalignment"],
        "evidence": "" if verdict is None else verdict["evidence"],
        "reason": reason,
    }


def conventions_table(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model and backend: judged failed games and the share the judge calls misaligned,
    overall and among games whose wrong agents the rules could only call ``other``."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[(str(r["model"]), str(r["backend"]))].append(r)
    out = []
    for (model, backend), group in sorted(by.items()):
        judged = [r for r in group if r["judged"]]
        yes = [r for r in judged if r["convention_misalignment"]]
        other = [r for r in judged if r["rule_labels"] == "other"]
        other_yes = [r for r in other if r["convention_misalignment"]]
        out.append(
            {
                "model": model,
                "backend": backend,
                "failed games": len(group),
                "judged": len(judged),
                "convention misalignment %": f"{100 * len(yes) / len(judged):.1f}"
                if judged
                else "–",
                "rule label 'other' only": len(other),
                "of those misaligned %": f"{100 * len(other_yes) / len(other):.1f}"
                if other
                else "–",
            }
        )
    return out


async def judge_games(
    client: ModelClient, traces: Sequence[Trace], target: Path, concurrency: int = 4
) -> tuple[int, list[Path]]:
    """Judge every failed sorting game of `traces`; write ``conventions.jsonl`` (one row per
    game) and the ``conventions`` table into `target`. Returns (games judged, files)."""
    from accord.analysis.report import write_table
    from accord.traces.io import write_jsonl

    failed = [t for t in traces if needs_judge(t)]
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(t: Trace) -> dict[str, Any]:
        refused: list[str] = []
        async with sem:
            verdict = await judge_trace(client, t, refused=refused)
        why = None if verdict is not None else (refused[-1] if refused else "no reply")
        return verdict_row(t, verdict, why)

    rows = list(await asyncio.gather(*(one(t) for t in failed)))
    target.mkdir(parents=True, exist_ok=True)
    write_jsonl(target / "conventions.jsonl", rows)
    written = [target / "conventions.jsonl"]
    if rows:
        written += write_table(
            conventions_table(rows),
            target / "conventions",
            title="Convention misalignment, LLM judge (MAS-Bench §5.3)",
        )
    return sum(1 for r in rows if r["judged"]), written


def command(traces: list[Trace], job: JudgeRun) -> JudgeResult:
    """``accord judge`` on failed sorting games: the §5.3 verdicts into ``job.out``."""
    from accord.models import get_model

    client = get_model(job.model, **job.options)
    judged, written = asyncio.run(judge_games(client, traces, job.out, job.concurrency))
    job.say(f"Judged {judged}/{len(traces)} failed sorting games.")
    for path in written:
        job.say(f"wrote {escape(str(path))}")
    error = None
    if not judged:
        # Exit 0 here would let an empty conventions table pass for a verdict.
        rows = [json.loads(x) for x in (job.out / "conventions.jsonl").read_text().splitlines()]
        top = Counter(str(r.get("reason")) for r in rows if r.get("reason")).most_common(3)
        why = "; ".join(f"{escape(r)} ({n}x)" for r, n in top) or "none recorded"
        error = (
            f"{escape(job.model)} judged 0 of {len(traces)} failed sorting games; replies "
            f"refused: {why} (every game is in {escape(str(job.out / 'conventions.jsonl'))}); "
            "check the model name and server, or try a stronger judge model."
        )
    return JudgeResult(judged, error)
