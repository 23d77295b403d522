"""Privacy of the calendar game: VPS per game and seat, the semantic-context leakage audit and
the privacy report (CalBench §3.2, §4.2 "Privacy cost", App. F.5, App. H, Table 2, Figure 2).

`analyse` runs the estimators of `vps` over one game's records; `privacy_metrics` turns the
analysis into the game's metrics (``vps``: mean excess VPS over targets, the Table 1/2 value;
``vps_total``; per setting ``uniform_vps`` / ``varied_vps``; ``semantic_leaks``) and per-seat
values (``vps``, ``vps_total``, ``semantic_leaks``). ``vps`` is None when nothing was measured:
no typed protocol message was delivered and no seat answered a reflection prompt.

Semantic-context leakage (§3 "Private contexts", App. H "semantic label leakage"). A delivered
message leaks a private label the sender can see (its own errands, meetings it attends) when a
recipient is not entitled to it (anyone but the owner for an errand, a non-participant for a
meeting) and the message holds the label's text, or a close paraphrase: at least
min(2, k) of the label's k distinctive keywords (words of four letters or more, outside a list
of generic calendar words, used by at most three labels of the whole bank).

`privacy_report(traces, out_dir)` writes the four F.5 tables (exact columns), the reflection
tables, the leakage audit, Table 2 and the privacy-cost plane of Figure 2.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accord.analysis.report import write_table
from accord.analysis.stats import bootstrap_mean
from accord.core.spec import Action, Request
from accord.games.calendar import vps
from accord.games.calendar.labels import load_label_bank, visible_labels
from accord.games.calendar.protocols.messages import decode
from accord.games.calendar.scenario import Scenario
from accord.traces.schema import Trace

if TYPE_CHECKING:
    from accord.games.calendar.state import World

_WORD = re.compile(r"[a-z]+")
_GENERIC = frozenset(
    (
        "about", "after", "appointment", "before", "call", "check", "class", "daily", "during",
        "errand", "every", "from", "into", "meeting", "monthly", "office", "over", "review",
        "session", "slot", "sync", "team", "that", "their", "them", "then", "this", "time",
        "weekly", "with", "your",
    )
)  # fmt: skip
"""Generic calendar words that never make a paraphrase on their own (stems, plural cut)."""


# -- semantic leakage ------------------------------------------------------------------------
def _words(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"  # a crude singular, so "groceries" meets "grocery"
        elif len(w) > 4 and w.endswith("s"):
            w = w[:-1]
        out.add(w)
    return out


@lru_cache(maxsize=1)
def _document_frequency() -> Counter[str]:
    bank = load_label_bank()
    df: Counter[str] = Counter()
    for kind in ("errand", "meeting"):
        for texts in bank.texts(kind).values():
            for text in texts:
                df.update(_words(text))
    return df


def keywords(label: str) -> set[str]:
    """The distinctive keywords of a label text (see the module docstring)."""
    df = _document_frequency()
    return {w for w in _words(label) if len(w) >= 4 and w not in _GENERIC and df[w] <= 3}


def leaks(content: str, label: str) -> str | None:
    """``"exact"``, ``"keywords"`` or None: whether `content` reveals `label`."""
    if " ".join(label.lower().split()) in " ".join(content.lower().split()):
        return "exact"
    keys = keywords(label)
    if keys and len(keys & _words(content)) >= min(2, len(keys)):
        return "keywords"
    return None


def leak_audit(scenario: Scenario, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (delivered message, label) it leaks to someone not entitled to it."""
    owners: dict[int, int] = {}
    for agent, cal in enumerate(scenario.calendars):
        owners |= {e.id: agent for e in cal if e is not None}
    attendees = {m.id: set(m.participants) for m in scenario.meetings}
    out: list[dict[str, Any]] = []
    for n, msg in enumerate(messages):
        if not msg.get("delivered", True) or decode(str(msg["content"])) is not None:
            continue  # typed protocol messages hold no text (App. D.4)
        sender, recipients = int(msg["sender"]), set(msg["recipients"])
        seen = visible_labels(scenario, sender)
        labels = [("errand", i, t, {owners[i]}) for i, t in seen["errands"].items()]
        labels += [("meeting", i, t, attendees[i]) for i, t in seen["meetings"].items()]
        for kind, item, text, entitled in labels:
            match = leaks(str(msg["content"]), text) if recipients - entitled else None
            if match:
                out.append(
                    {
                        "message": n,
                        "round": msg["round"],
                        "sender": sender,
                        "recipients": sorted(recipients - entitled),
                        "kind": kind,
                        "item_id": item,
                        "match": match,
                    }
                )
    return out


# -- the reflection phase (F.3) ---------------------------------------------------------------
class ReflectionRound:
    """The measurement prompts after one round: one request per seat, all pending together
    (`pending`), each `ephemeral` (an LLM seat never keeps the exchange in its history), each
    answer recorded in ``World.reflections`` and as a ``reflection`` event. Reference agents
    answer without ``deltas`` and so abstain."""

    def __init__(
        self,
        world: World,
        round_no: int,
        order: Sequence[int],
        systems: Sequence[str],
        guard: Callable[[int, str], str],
        emit: Callable[..., None],
    ) -> None:
        self.world, self.round, self.emit = world, round_no, emit
        sc = self.scenario = world.scenario
        meeting = sc.meetings[round_no - 1]
        self.pending: dict[int, Request] = {}
        for seat in range(sc.num_agents):
            targets = self._targets(seat)
            text = guard(seat, vps.reflection_prompt(round_no, targets, sc.num_slots))
            info = {
                "phase": "REFLECTION",
                "round": round_no,
                "turn": 0,
                "meeting": {"id": meeting.id, "participants": list(meeting.participants)},
                "speaker_order": list(order),
                "is_participant": seat in meeting.participants,
                "num_agents": sc.num_agents,
                "num_slots": sc.num_slots,
                "targets": targets,
            }
            self.pending[seat] = Request(
                seat=seat,
                observation=text,
                spec=vps.reflection_spec(targets, sc.num_slots),
                system=systems[seat],
                ephemeral=True,
                info=info,
                round=round_no,
            )
            emit("reflection_start", round=round_no, agent=seat, prompt=text)

    def _targets(self, seat: int) -> list[int]:
        return [a for a in range(self.scenario.num_agents) if a != seat]

    def accept(self, seat: int, action: Action, *, fallback: bool = False) -> bool:
        """Record `seat`'s answer (raises `ActionError` if invalid); True once all answered."""
        targets = self._targets(seat)
        entry = vps.reflection_entry(
            action, self.round, seat, targets, self.scenario.num_slots, fallback=fallback
        )
        del self.pending[seat]
        self.world.reflections.append(entry)
        self.emit("reflection", **entry)
        return not self.pending


# -- one game --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Analysis:
    """Every privacy measurement of one game."""

    scenario: Scenario
    updates: list[vps.Update]
    pairs: list[dict[str, Any]]
    targets: list[dict[str, Any]]
    reflections: list[dict[str, Any]]
    totals: list[float]
    """Each target's loss over the game (reflection where answered, else typed)."""
    leaks: list[dict[str, Any]]
    typed_messages: int

    @property
    def measured(self) -> bool:
        """Whether any estimator saw anything (typed messages or reflection answers)."""
        return self.typed_messages > 0 or bool(self.reflections)


def analyse(
    scenario: Scenario,
    rounds: Sequence[Mapping[str, Any]],
    moves: Sequence[Mapping[str, Any]],
    messages: Sequence[Mapping[str, Any]],
    reflections: Sequence[Mapping[str, Any]] = (),
    event_index: Sequence[int] | None = None,
) -> Analysis:
    """Measure one game from its records (``final_state`` lists, or the live `World`'s dumped).

    `event_index` gives each delivered message's position in the trace's events (for
    ``belief_evidence.csv``); by default the message ordinal is used."""
    delivered = [m for m in messages if m.get("delivered", True)]
    index = list(event_index) if event_index is not None else list(range(len(delivered)))
    seen = [
        vps.Seen(i, int(m["round"]), int(m["sender"]), tuple(m["recipients"]), str(m["content"]))
        for i, m in zip(index, delivered, strict=True)
    ]
    updates = vps.belief_updates(seen, scenario.num_slots)
    starts, ends = vps.replay_calendars(scenario, rounds, moves)
    pairs = vps.pair_rows(scenario, starts, updates)
    answered = [r for r in reflections if r.get("deltas")]
    refl = vps.reflection_rows(answered, ends)
    return Analysis(
        scenario=scenario,
        updates=updates,
        pairs=pairs,
        targets=vps.target_rows(pairs, scenario.num_agents),
        reflections=refl,
        totals=vps.combined_totals(pairs, refl, scenario.num_agents),
        leaks=leak_audit(scenario, messages),
        typed_messages=sum(decode(s.content) is not None for s in seen),
    )


def privacy_metrics(analysis: Analysis) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """Game metrics and per-seat values (see the module docstring)."""
    n = analysis.scenario.num_agents
    excess = [max(0.0, t - vps.FLOOR) for t in analysis.totals]
    per_sender = Counter(
        row["sender"] for row in {r["message"]: r for r in analysis.leaks}.values()
    )
    measured = analysis.measured
    metrics: dict[str, Any] = {
        "vps": sum(excess) / n if measured else None,
        "vps_total": sum(analysis.totals) / n if measured else None,
        "vps_typed_messages": analysis.typed_messages,
        "vps_reflections": len(analysis.reflections),
        "semantic_leaks": len({r["message"] for r in analysis.leaks}),
    }
    seats = {
        i: {
            "vps": excess[i] if measured else None,
            "vps_total": analysis.totals[i] if measured else None,
            "semantic_leaks": per_sender.get(i, 0),
        }
        for i in range(n)
    }
    return metrics, seats


def analyse_trace(trace: Trace) -> Analysis:
    """`analyse` over a finished calendar trace."""
    fs = trace.final_state
    messages = fs.get("messages", [])
    index = [i for i, e in enumerate(trace.events) if e.get("type") in ("dm_sent", "message")]
    delivered = sum(1 for m in messages if m.get("delivered", True))
    return analyse(
        Scenario.model_validate(trace.scenario),
        fs.get("rounds", []),
        fs.get("moves", []),
        messages,
        fs.get("reflections", []),
        index if len(index) == delivered else None,
    )


# -- the report ------------------------------------------------------------------------------
F5_COLUMNS: dict[str, tuple[str, ...]] = {
    "belief_evidence": (
        "trace_path", "game_id", "event_index", "round", "target_agent", "observer_agent",
        "slot", "source", "evidence", "strength", "belief_before", "belief_after",
    ),
    "pair_round_vps": ("trace_path", "game_id", *vps.PAIR_COLUMNS),
    "game_summary": (
        "trace_path", "game_id", "vps_loss_total", "vps_loss_mean",
        "participant_pair_vps_loss_total", "participant_pair_vps_loss_mean", "observation_count",
    ),
    "game_target_summary": (
        "trace_path", "game_id", "target_agent", "vps_loss_total", "excess_vps_loss_total",
        "participant_pair_vps_loss_total", "floor",
    ),
}  # fmt: skip
"""The four tables of App. F.5 and their exact columns."""

TABLE2_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("success", "Coord. %", True),
    ("excess_cost", "Excess", False),
    ("messages_per_meeting", "Msgs.", False),
    ("fairness", "Fair.", False),
    ("vps", "VPS", False),
    ("adjusted_excess", "Adj. excess", False),
    ("semantic_leaks", "Leaks/game", False),
)
"""Table 2 columns (seat-row key, header, percent), plus the Figure 2 axis and the audit."""


def _write_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], path: Path) -> Path:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


def f5_rows(trace: Trace, analysis: Analysis) -> dict[str, list[dict[str, Any]]]:
    """The rows `trace` contributes to each F.5 table, plus its reflection rows."""
    key = {"trace_path": f"traces/{trace.trace_id}.json", "game_id": trace.trace_id}
    evidence = [
        key
        | {
            "event_index": u.index,
            "round": u.round,
            "target_agent": u.target,
            "observer_agent": u.observer,
            "slot": u.slot,
            "source": u.source,
            "evidence": u.evidence,
            "strength": u.strength,
            "belief_before": u.before,
            "belief_after": u.after,
        }
        for u in analysis.updates
    ]
    totals = dict(enumerate(analysis.totals))
    reflect_targets = [
        key
        | {"target_agent": i, "calibrated_vps_loss_total": t}
        | {"excess_calibrated_vps_loss_total": max(0.0, t - vps.FLOOR), "floor": vps.FLOOR}
        for i, t in totals.items()
    ]
    return {
        "belief_evidence": evidence,
        "pair_round_vps": [key | p for p in analysis.pairs],
        "game_summary": [key | vps.game_summary(analysis.pairs)],
        "game_target_summary": [key | t for t in analysis.targets],
        "reflection_vps": [key | r for r in analysis.reflections],
        "reflection_target_summary": reflect_targets if analysis.reflections else [],
        "semantic_leaks": [key | r for r in analysis.leaks],
    }


def table2_entries(seat_rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Table 2: per (cost setting, agent), each column's per-game mean with a 95% bootstrap CI
    over games (a game's value is the mean over the agent's seats in it)."""
    per_game: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in seat_rows:
        per_game[(str(r["cost_setting"]), str(r["agent"]))][str(r["trace_id"])].append(r)
    out: list[dict[str, Any]] = []
    for (setting, agent), games in sorted(per_game.items()):
        entry: dict[str, Any] = {"cost_setting": setting, "method": agent, "games": len(games)}
        for key, _, _ in TABLE2_COLUMNS:
            values = []
            for rows in games.values():
                vals = [float(v) for r in rows if isinstance(v := r.get(key), int | float)]
                if vals:
                    values.append(sum(vals) if key == "semantic_leaks" else sum(vals) / len(vals))
            entry[key] = bootstrap_mean(values).as_dict()
        out.append(entry)
    return out


def _fmt(est: Mapping[str, Any], percent: bool) -> str:
    if est["n"] == 0:
        return "–"
    k = 100.0 if percent else 1.0
    lo, hi = est["ci_low"] * k, est["ci_high"] * k
    mean = est["mean"] * k
    return f"{mean:.2f}" if lo == hi else f"{mean:.2f} [{lo:.2f}, {hi:.2f}]"


def figure2(entries: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """The privacy-cost plane: VPS against coordination-adjusted excess, per setting."""
    from accord.analysis.figures import (
        PAPER_WIDTH,
        ci_note,
        legend_below,
        new_figure,
        pad_to,
        save_figure,
    )

    settings = sorted({str(e["cost_setting"]) for e in entries})
    methods = sorted({str(e["method"]) for e in entries})
    fig = new_figure(PAPER_WIDTH, 3.2)
    counts: list[str] = []
    for i, setting in enumerate(settings):
        ax = fig.add_subplot(1, len(settings), i + 1)
        xs: list[float] = []
        ys: list[float] = []
        for j, method in enumerate(methods):
            e = next(
                (x for x in entries if x["cost_setting"] == setting and x["method"] == method), None
            )
            if e is None or e["vps"]["n"] == 0 or e["adjusted_excess"]["n"] == 0:
                continue
            x, y = e["vps"], e["adjusted_excess"]
            ax.errorbar(
                x["mean"], y["mean"],
                xerr=[[x["mean"] - x["ci_low"]], [x["ci_high"] - x["mean"]]],
                yerr=[[y["mean"] - y["ci_low"]], [y["ci_high"] - y["mean"]]],
                fmt="o", capsize=3, color=f"C{j % 10}", label=method,
            )  # fmt: skip
            xs += [x["ci_low"], x["ci_high"], x["mean"]]
            ys += [y["ci_low"], y["ci_high"], y["mean"]]
            counts.append(f"{method} {setting} {x['n']}")
        ax.set_title(f"{setting} costs", fontsize=8)
        ax.set_xlabel("VPS (excess, slot-equivalents)", fontsize=8)
        ax.set_ylabel("coordination-adjusted excess cost", fontsize=8)
        ax.tick_params(labelsize=7)
        # Every point and error-bar end inside, with the origin in view (a point at the edge
        # of the autoscaled axis was cut in half).
        pad_to(ax, xs, ys)
        ax.grid(alpha=0.3)
    legend_below(fig, ncol=4)
    path = out / "figure2_privacy_cost.png"
    note = ci_note("; ".join(counts) or "0", "games", "95% percentile-bootstrap CI (x and y)")
    save_figure(fig, path, note=note)
    return path


def privacy_report(traces: list[Trace], out_dir: Path) -> list[Path]:
    """Write the privacy outputs for the calendar traces in `traces` (module docstring)."""
    from accord.runner.results import seat_rows

    tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows: list[dict[str, Any]] = []
    for trace in traces:
        if trace.status != "complete" or not trace.scenario:
            continue
        analysis = analyse_trace(trace)
        for name, part in f5_rows(trace, analysis).items():
            tables[name] += part
        _, seats = privacy_metrics(analysis)
        rows += [r | seats[int(r["seat"])] for r in seat_rows(trace)]
    written = [_write_csv(tables[n], cols, out_dir / f"{n}.csv") for n, cols in F5_COLUMNS.items()]
    for name in ("reflection_vps", "reflection_target_summary", "semantic_leaks"):
        if tables[name]:
            written.append(_write_csv(tables[name], list(tables[name][0]), out_dir / f"{name}.csv"))
    if not rows:
        return written
    entries = table2_entries(rows)
    pretty = [
        {"cost_setting": e["cost_setting"], "method": e["method"], "games": e["games"]}
        | {label: _fmt(e[key], pct) for key, label, pct in TABLE2_COLUMNS}
        for e in entries
    ]
    title = "Table 2: reference protocols and agents (mean [95% bootstrap CI] over games)"
    written += write_table(pretty, out_dir / "table2", title=title)
    written.append(figure2(entries, out_dir))
    written.append(out_dir / "figure2_privacy_cost.svg")
    return written
