"""VPS, Valuations of Possible States (CalBench §3.2, Eq. 1, App. F.1-F.5): the estimators.

**Protocol-semantic VPS** (F.1, F.2). For every (round r, target i, observer j) a belief vector
over i's slots starts at the prior p0 = 0.5. Each delivered typed message (`protocols.messages`)
from i is replayed in order for each seat that received it (point-to-point visibility: a dm
reaches its recipient, a group message everyone it was delivered to) and yields updates
(slot k, evidence e, strength α, source) by Table 10:

| message | slots | e | α |
|---|---|---|---|
| DSM proposals | each proposed slot | 1.0 | 1 |
| DSM scores | each scored plan's slot | 0 if s <= 0 else s/(D-1) | 1 |
| DSM decision | chosen slot | 1.0 | 1 |
| IMAP cost_request | none | | |
| IMAP costs | each requested slot | 0 if cost is null else 1.0 | 1 |
| IMAP decision | chosen slot | 1.0 | 1 |
| SD propose / propose_reschedule | proposed slot | 0.85 | 0.70 |
| SD reply / reschedule_reply | proposed slot | 0 if IMPOSSIBLE else 1.0 | 1 |

Scores carry plan ids: they are mapped to slots through the proposals message the scorer got
from that initiator in that round (keyed (round, proposer, scorer)). Costs count only for the
slots the matching cost_request listed; replies only for a slot that was proposed to the
replier. The update is Bel'[k] = (1 - α) Bel[k] + α e, and Eq. 1 gives
VPS^r_{j->i} = Σ_k |Bel[k] - p0| at the end of the round; a fully revealed slot counts 0.5.

**Reflection-calibrated VPS** (F.3). A reflection answer of observer j after round r holds, per
target i, one integer δ_k in -3..3 per slot (positive: more willing to say "occupied"). Raw loss
is Σ_k |δ_k| / 3 (±3 is one slot); calibrated loss keeps only the δ_k that point toward i's
true occupancy at the end of round r (δ > 0 on an occupied slot, δ < 0 on a free one).

**Per game and target** the loss of (r, i, j) is j's calibrated reflection when j answered one
in round r, else the protocol-semantic loss; a target's total over rounds and observers minus
the five-slot floor, clipped at 0, is its excess VPS. The game's ``vps`` is the mean excess over
all targets (with the floor applied, IMAP's structural footprint gives Table 2's 12.40).

Ground truth for ``*_distance_to_ideal`` is feasibility at the start of the round (free or a
movable errand), the quantity typed messages are evidence about; calendars are replayed from
the scenario and the recorded moves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import ActionError
from accord.core.provenance import format_warnings
from accord.core.spec import Action, ActionSpec, JSONSchema
from accord.games.calendar import rules
from accord.games.calendar.actions import extract_object
from accord.games.calendar.protocols import messages as pm
from accord.games.calendar.rules import Calendar
from accord.games.calendar.scenario import Scenario

PRIOR = 0.5
"""p0 (F.4)."""
FLOOR = 5.0
"""Slots subtracted from each game-target total (F.3)."""
SD_PROPOSE = (0.85, 0.70)
"""(evidence, strength) of an SD proposal (Table 10)."""
DSM_LEVELS = 12
"""D of the DSM scores (App. D.3)."""
REFLECTION_MAX = 3
"""|δ| of a reflection answer that counts as one slot (F.3)."""


@dataclass(frozen=True)
class Seen:
    """One delivered message as the estimator reads it."""

    index: int
    """Position in the trace's events (or the message ordinal inside a live game)."""
    round: int
    sender: int
    recipients: tuple[int, ...]
    content: str


@dataclass(frozen=True)
class Update:
    """One belief update: a row of ``belief_evidence.csv``."""

    index: int
    round: int
    target: int
    observer: int
    slot: int
    source: str
    evidence: float
    strength: float
    before: float
    after: float


@dataclass
class _Maps:
    """What earlier messages told the estimator about later ones (Table 10 caption)."""

    requests: dict[tuple[int, int, int], set[int]] = field(default_factory=dict)
    plans: dict[tuple[int, int, int], dict[int, int]] = field(default_factory=dict)
    proposed: dict[tuple[int, int, int], set[int]] = field(default_factory=dict)
    repairs: dict[tuple[int, int, int, int], set[int]] = field(default_factory=dict)


def _evidence(
    msg: pm.Typed, seen: Seen, observer: int, maps: _Maps
) -> list[tuple[int, float, float, str]]:
    """(slot, evidence, strength, source) for `observer` (Table 10), updating `maps`."""
    r, i, j = seen.round, seen.sender, observer
    source = f"{msg.key[0]}.{msg.key[1]}"
    if isinstance(msg, pm.CostRequest):
        maps.requests[(r, i, j)] = set(msg.slots)
        return []
    if isinstance(msg, pm.Costs):
        allowed = maps.requests.get((r, j, i), set())
        pairs = zip(msg.slots, msg.costs, strict=False)
        return [(k, 0.0 if c is None else 1.0, 1.0, source) for k, c in pairs if k in allowed]
    if isinstance(msg, pm.ImapDecision | pm.DsmDecision):
        return [(msg.slot, 1.0, 1.0, source)]
    if isinstance(msg, pm.Proposals):
        table = maps.plans.setdefault((r, i, j), {})
        table.update({pid: slot for pid, slot, _ in msg.plans})
        return [(slot, 1.0, 1.0, source) for _, slot, _ in msg.plans]
    if isinstance(msg, pm.Scores):
        table = maps.plans.get((r, j, i), {})
        top = DSM_LEVELS - 1
        return [
            (table[pid], 0.0 if s <= 0 else s / top, 1.0, source)
            for pid, s in msg.scores
            if pid in table
        ]
    if isinstance(msg, pm.Propose):
        maps.proposed.setdefault((r, i, j), set()).add(msg.slot)
        return [(msg.slot, *SD_PROPOSE, source)]
    if isinstance(msg, pm.ProposeReschedule):
        maps.repairs.setdefault((r, i, j, msg.target), set()).add(msg.slot)
        return [(msg.slot, *SD_PROPOSE, source)]
    if isinstance(msg, pm.Reply) and msg.slot in maps.proposed.get((r, j, i), set()):
        return [(msg.slot, 0.0 if msg.status == "IMPOSSIBLE" else 1.0, 1.0, source)]
    if isinstance(msg, pm.RescheduleReply) and msg.slot in maps.repairs.get(
        (r, j, i, msg.target), set()
    ):
        return [(msg.slot, 0.0 if msg.status == "IMPOSSIBLE" else 1.0, 1.0, source)]
    return []


def belief_updates(seen: Iterable[Seen], num_slots: int) -> list[Update]:
    """Every typed-message belief update of a game, in message order (F.1, F.2)."""
    maps = _Maps()
    beliefs: dict[tuple[int, int, int], list[float]] = {}
    out: list[Update] = []
    for s in seen:
        msg = pm.decode(s.content)
        if msg is None:
            continue
        for observer in s.recipients:
            for slot, e, alpha, source in _evidence(msg, s, observer, maps):
                if not 0 <= slot < num_slots:
                    continue
                vec = beliefs.setdefault((s.round, s.sender, observer), [PRIOR] * num_slots)
                before = vec[slot]
                vec[slot] = (1.0 - alpha) * before + alpha * e
                out.append(
                    Update(
                        s.index,
                        s.round,
                        s.sender,
                        observer,
                        slot,
                        source,
                        e,
                        alpha,
                        before,
                        vec[slot],
                    )
                )
    return out


def posteriors(
    updates: Iterable[Update], num_slots: int
) -> dict[tuple[int, int, int], list[float]]:
    """End-of-round beliefs per (round, target, observer) that saw any evidence."""
    out: dict[tuple[int, int, int], list[float]] = {}
    for u in updates:
        out.setdefault((u.round, u.target, u.observer), [PRIOR] * num_slots)[u.slot] = u.after
    return out


def eq1(belief: Sequence[float]) -> float:
    """VPS of one belief vector (Eq. 1)."""
    return sum(abs(b - PRIOR) for b in belief)


# -- calendars over the game ---------------------------------------------------------------
def replay_calendars(
    scenario: Scenario, rounds: Sequence[Mapping[str, Any]], moves: Sequence[Mapping[str, Any]]
) -> tuple[list[tuple[Calendar, ...]], list[tuple[Calendar, ...]]]:
    """Every calendar at the start and at the end of each round, from the recorded moves
    (batches are consecutive records of one round, phase and agent; moves in a batch are
    simultaneous) and the successful rounds' meeting slots."""
    cals = list(rules.initial_calendars(scenario))
    batches: dict[tuple[int, str], list[tuple[int, list[rules.Move]]]] = defaultdict(list)
    last: tuple[int, str, int] | None = None
    for m in moves:
        key = (int(m["round"]), str(m["phase"]), int(m["agent"]))
        if key != last:
            batches[key[:2]].append((key[2], []))
            last = key
        batches[key[:2]][-1][1].append(rules.Move(m["item_id"], m["from_slot"], m["to_slot"]))
    starts: list[tuple[Calendar, ...]] = []
    ends: list[tuple[Calendar, ...]] = []
    for r in rounds:
        n = int(r["round"])
        starts.append(tuple(cals))
        for agent, batch in batches.get((n, "VOLUNTARY"), []):
            cals[agent] = rules.apply_moves(cals[agent], batch)
        for agent, batch in batches.get((n, "DECISION"), []):
            cals[agent] = rules.apply_moves(cals[agent], batch)
        if r["success"] and r["slot"] is not None:
            item = rules.meeting_item(scenario.meeting(int(r["meeting_id"])))
            for agent in r["participants"]:
                cal = list(cals[agent])
                cal[int(r["slot"])] = item
                cals[agent] = tuple(cal)
        ends.append(tuple(cals))
    return starts, ends


def feasible(calendar: Calendar) -> list[int]:
    """1 for a slot a meeting could take (free or a movable errand), else 0."""
    return [int(i is None or (i.kind == "errand" and not i.blocked)) for i in calendar]


def occupied(calendar: Calendar) -> list[int]:
    """1 for an occupied slot."""
    return [int(i is not None) for i in calendar]


# -- reflection (F.3) ------------------------------------------------------------------------
def reflection_loss(deltas: Sequence[int], truth: Sequence[int]) -> tuple[float, float]:
    """(raw, calibrated) slot-equivalent loss of one target's deltas against its occupancy."""
    raw = sum(abs(d) for d in deltas) / REFLECTION_MAX
    toward = sum(
        abs(d) for d, t in zip(deltas, truth, strict=False) if (d > 0 and t) or (d < 0 and not t)
    )
    return raw, toward / REFLECTION_MAX


def reflection_rows(
    reflections: Sequence[Mapping[str, Any]], ends: Sequence[tuple[Calendar, ...]]
) -> list[dict[str, Any]]:
    """Per (round, target, observer) with a reflection answer: raw and calibrated loss."""
    out: list[dict[str, Any]] = []
    for ref in reflections:
        r, observer = int(ref["round"]), int(ref["observer"])
        for target, deltas in sorted((ref.get("deltas") or {}).items(), key=lambda t: int(t[0])):
            truth = occupied(ends[r - 1][int(target)])
            raw, calibrated = reflection_loss([int(d) for d in deltas], truth)
            row = {"round": r, "target_agent": int(target), "observer_agent": observer}
            out.append(row | {"raw_vps_loss": raw, "calibrated_vps_loss": calibrated})
    return out


# -- F.5 tables ------------------------------------------------------------------------------
PAIR_COLUMNS = (
    "round",
    "target_agent",
    "observer_agent",
    "target_is_participant",
    "observer_is_participant",
    "num_agents",
    "num_slots",
    "observations",
    "prior_distance_to_ideal",
    "posterior_distance_to_ideal",
    "vps_loss",
    "vps_loss_per_slot",
    "prior",
)
"""``pair_round_vps.csv`` columns after ``trace_path, game_id`` (F.5)."""


def pair_rows(
    scenario: Scenario, starts: Sequence[tuple[Calendar, ...]], updates: Sequence[Update]
) -> list[dict[str, Any]]:
    """One row per (round, target, observer), every ordered pair of distinct agents."""
    n, s = scenario.num_agents, scenario.num_slots
    post = posteriors(updates, s)
    counts: dict[tuple[int, int, int], int] = defaultdict(int)
    for u in updates:
        counts[(u.round, u.target, u.observer)] += 1
    out: list[dict[str, Any]] = []
    for r, cals in enumerate(starts, start=1):
        who = set(scenario.meetings[r - 1].participants)
        for i in range(n):
            truth = feasible(cals[i])
            for j in range(n):
                if i == j:
                    continue
                bel = post.get((r, i, j), [PRIOR] * s)
                loss = eq1(bel)
                out.append(
                    {
                        "round": r,
                        "target_agent": i,
                        "observer_agent": j,
                        "target_is_participant": i in who,
                        "observer_is_participant": j in who,
                        "num_agents": n,
                        "num_slots": s,
                        "observations": counts[(r, i, j)],
                        "prior_distance_to_ideal": sum(abs(PRIOR - t) for t in truth),
                        "posterior_distance_to_ideal": sum(
                            abs(b - t) for b, t in zip(bel, truth, strict=True)
                        ),
                        "vps_loss": loss,
                        "vps_loss_per_slot": loss / s,
                        "prior": PRIOR,
                    }
                )
    return out


def _both(row: Mapping[str, Any]) -> bool:
    return bool(row["target_is_participant"] and row["observer_is_participant"])


def game_summary(pairs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``game_summary.csv`` values of one game (after ``trace_path, game_id``)."""
    losses = [float(p["vps_loss"]) for p in pairs]
    inner = [float(p["vps_loss"]) for p in pairs if _both(p)]
    return {
        "vps_loss_total": sum(losses),
        "vps_loss_mean": sum(losses) / len(losses) if losses else 0.0,
        "participant_pair_vps_loss_total": sum(inner),
        "participant_pair_vps_loss_mean": sum(inner) / len(inner) if inner else 0.0,
        "observation_count": sum(int(p["observations"]) for p in pairs),
    }


def target_rows(pairs: Sequence[Mapping[str, Any]], num_agents: int) -> list[dict[str, Any]]:
    """``game_target_summary.csv`` values per target (after ``trace_path, game_id``)."""
    total = [0.0] * num_agents
    inner = [0.0] * num_agents
    for p in pairs:
        total[p["target_agent"]] += float(p["vps_loss"])
        if _both(p):
            inner[p["target_agent"]] += float(p["vps_loss"])
    return [
        {
            "target_agent": i,
            "vps_loss_total": total[i],
            "excess_vps_loss_total": max(0.0, total[i] - FLOOR),
            "participant_pair_vps_loss_total": inner[i],
            "floor": FLOOR,
        }
        for i in range(num_agents)
    ]


def combined_totals(
    pairs: Sequence[Mapping[str, Any]],
    reflections: Sequence[Mapping[str, Any]],
    num_agents: int,
) -> list[float]:
    """Each target's loss over the game: a reflecting observer's calibrated answer for the
    rounds it answered, the protocol-semantic loss otherwise (module docstring)."""
    answered = {(r["round"], r["target_agent"], r["observer_agent"]): r for r in reflections}
    total = [0.0] * num_agents
    for p in pairs:
        key = (p["round"], p["target_agent"], p["observer_agent"])
        ref = answered.get(key)
        total[p["target_agent"]] += (
            float(ref["calibrated_vps_loss"]) if ref is not None else float(p["vps_loss"])
        )
    return total


# -- the F.3 measurement prompt --------------------------------------------------------------
def reflection_prompt(round_no: int, targets: Sequence[int], num_slots: int) -> str:
    """The measurement-only question asked of every seat after round `round_no`."""
    example = ", ".join(f'"{t}": [{", ".join(["0"] * min(num_slots, 4))}, ...]' for t in targets)
    return (
        f"=== ROUND {round_no} REFLECTION (measurement only) ===\n"
        "This question is not part of the game: no other agent sees your answer and it changes "
        "nothing in the game.\n"
        f"For each of agents {list(targets)} and each slot 0 to {num_slots - 1} of their "
        "calendar: how did this round change your belief that the slot is OCCUPIED on their "
        "calendar? Give an integer from -3 to 3: positive means you now lean more towards "
        '"occupied", negative more towards "free", 0 no change; +3 or -3 means you now know.\n'
        'Reply with one JSON object: {"thinking": "...", "deltas": {' + example + "}} "
        f"with exactly {num_slots} integers for every agent listed."
    )


def reflection_schema(targets: Sequence[int], num_slots: int) -> JSONSchema:
    """JSON schema of a reflection reply (for constrained decoding)."""
    vector: JSONSchema = {
        "type": "array",
        "items": {"type": "integer", "minimum": -REFLECTION_MAX, "maximum": REFLECTION_MAX},
        "minItems": num_slots,
        "maxItems": num_slots,
    }
    keys = [str(t) for t in targets]
    deltas: JSONSchema = {
        "type": "object",
        "properties": {k: vector for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"thinking": {"type": "string", "maxLength": 400}, "deltas": deltas},
        "required": ["thinking", "deltas"],
        "additionalProperties": False,
    }


def check_deltas(raw: object, targets: Sequence[int], num_slots: int) -> dict[str, list[int]]:
    """Validated deltas (keys are target ids as strings); `ActionError` says what is wrong."""
    if not isinstance(raw, dict):
        raise ActionError('"deltas" must be an object mapping each agent id to a list of integers')
    want = {str(t) for t in targets}
    extra = sorted(set(map(str, raw)) - want)
    missing = sorted(want - set(map(str, raw)), key=int)
    if extra or missing:
        raise ActionError(
            f'"deltas" must have exactly the keys {sorted(want, key=int)}; missing {missing}, '
            f"unexpected {extra}"
        )
    out: dict[str, list[int]] = {}
    for key, values in raw.items():
        ok = isinstance(values, list) and len(values) == num_slots
        if not ok or not all(
            isinstance(v, int) and not isinstance(v, bool) and abs(v) <= REFLECTION_MAX
            for v in values
        ):
            raise ActionError(
                f'"deltas"["{key}"] must be a list of exactly {num_slots} integers from '
                f"-{REFLECTION_MAX} to {REFLECTION_MAX}"
            )
        out[str(key)] = list(values)
    return out


def reflection_spec(targets: Sequence[int], num_slots: int) -> ActionSpec:
    """Parser, schema and fallback of a reflection request. The fallback, and any built action
    without ``deltas`` (a reference agent), is an abstention: no reflection is recorded."""

    def parse(text: str) -> Action:
        obj, warnings = extract_object(text)
        if "deltas" not in obj:
            raise ActionError(
                'the reply has no "deltas" object; reply with {"thinking": "...", "deltas": {...}}'
            )
        deltas = check_deltas(obj["deltas"], targets, num_slots)
        format_warnings(warnings)
        return {"thinking": str(obj.get("thinking", "")), "deltas": deltas}

    return ActionSpec(
        kind="reflect",
        parse=parse,
        schema=reflection_schema(targets, num_slots),
        fallback=lambda: {"thinking": "", "deltas": {}},
        format_hint='Reply with one JSON object: {"thinking": "...", "deltas": {...}}.',
    )


def reflection_entry(
    action: Action,
    round_no: int,
    seat: int,
    targets: Sequence[int],
    num_slots: int,
    *,
    fallback: bool = False,
) -> dict[str, Any]:
    """What the game records for one answered reflection request (raises `ActionError`)."""
    raw = action.get("deltas") or {}
    deltas = check_deltas(raw, targets, num_slots) if raw else {}
    return {
        "round": round_no,
        "observer": seat,
        "deltas": deltas,
        "abstained": not deltas,
        "fallback": fallback,
    }
