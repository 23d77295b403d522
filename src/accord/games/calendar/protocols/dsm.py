"""DSM, the score-based multi-round reference protocol (CalBench App. D.3, Table 9; specs
``dsm-welfare`` and ``dsm-private``).

Per meeting M1 the lowest-id participant (the initiator) runs sub-rounds:

1. Its candidate plans are its schedulable slots and, for a slot holding one of its prior
   meetings M2, displacement chains moving M2 to a free slot or onto another prior meeting M3
   that moves on in turn (up to `cascade_depth`), the `displacement_targets` cheapest of them
   (the release's rule, `dsm_chains`; the ``-v2``/``-v1`` presets let a target hold a movable
   errand and keep one chain per target). Plans are ordered by the initiator's own satisfaction
   level, then slot.
2. Offer size L maximises U(L) = p(L) v(L) + w_soc p(L) - θ c_priv L - β (1 - p(L)) over
   [L_min, min(L_max, plans left)], smaller L on ties: p(L) = 1 - (1 - p̂)^L with
   p̂ = (1 - ρ)^R, ρ the initiator's calendar density (share of occupied slots) and R the number
   of responders; v(L) the mean of the top-L local levels over D-1; c_priv = 1 per offered slot.
3. ``proposals`` (plan ids, slots, moves) go to every other participant, and to each participant
   of a displaced meeting who is not in M1: the whole offer set in the paper presets (as the
   release's client sends it; a plan that does not touch the outsider's calendar scores D-1),
   only the plans that move its meetings in the ``-v1`` variants. Each answers
   ``scores``: per plan a satisfaction level s in 0..D-1 (D = 12): 0 infeasible, D-1 free with no
   displacement, else max(1, D-1-u(c)) for the plan's displacement cost c on its calendar. The
   paper presets (``scale="shown"``, the CalBench release's client) take u(c) = c in the units
   the agent is shown, which saturates: every cost of 10 or more is level 1, so a 100 and a
   1000 errand look alike. The ``-v1`` variants take u(c) = 1 + ceil(log2 c) in task units
   (`base.satisfaction_cost`), which keeps every cost ordered.
4. A plan is fully feasible when its local level and the scores of every seat it concerns
   (the other participants and the outside participants of the meetings it moves) are
   positive. The initiator ranks plans by (total loss Σ (D-1-s) over itself and those seats,
   number of those seats, slot, id) and takes the first fully feasible one, as the release's
   client does (``rank="loss"``); it sends ``decision`` to the seats the chosen plan concerns
   (``decision_to="plan"``, the release's client). The presets before issue 24 (``-v2``) took
   the least concession over every scorer, earlier plans on ties, and told every scorer.
   Otherwise it runs another sub-round on the plans not yet offered: for DSM-Welfare until the
   plans run out (Table 9 "exhaustive search: yes"; ``dsm-welfare-release`` stops after one
   sub-round as the release's client does), and for DSM-Private only while U(L*) > -β, the
   value of giving up (with θ = 10 that never holds, so one sub-round).
5. Fallback (``fallback=True``, the release's client and the paper presets): when the search
   ends without a fully feasible plan the initiator still announces the plan ranked first,
   infeasible scores counting as full concessions. In DECISION (``walk="schedulable"``, the
   release's client) a seat without a decision submits nothing; one with a decision builds the
   plan on the agreed slot if it can schedule there, else on its first schedulable slot (free,
   or holding an errand or meeting while another slot is free), and submits nothing when it
   cannot build it; each retry k takes its k-th schedulable slot. The ``-v2`` presets
   (``walk="first"``) schedule the lowest slot the seat can clear alone at once. Seats then
   usually pick different slots and the round fails, but under the game's default
   ``failed_round: keep`` their moves stay charged, as in the paper's Table 2. Without the
   fallback (the ``-nofallback`` and ``-v1`` variants) such a seat submits no batch.

Points (App. D.3 "Satisfaction levels and scoring cost"): at the decision every scorer pays
C(s) = D - s - 1 for each positive score it reported during the meeting, and each scorer of the
chosen plan receives R = (D-1-s*) + max(0, min(A, L) - 1), with R = 0 when s* is 0 or D-1, s*
its level for the chosen plan, A its number of positive scores and L the plans it was offered
in that sub-round. The initiator gains Σ C - Σ R. A meeting without a decision settles nothing.
Each seat's running total is `DsmAgent.points` and appears in its logged ``thinking``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accord.games.calendar.protocols import dsm_chains
from accord.games.calendar.protocols.base import (
    DEADLINE_SWEEPS,
    ProtocolAgent,
    View,
    build_batch,
    plan_cost,
    route,
)
from accord.games.calendar.protocols.dsm_plans import (
    Candidate,
    D,
    DsmParams,
    Plan,
    candidate_plans,
    level,
    offer_size,
    p_hat,
    reward,
    schedulable_slots,
    scoring_cost,
)
from accord.games.calendar.protocols.messages import (
    DsmDecision,
    Proposals,
    Scores,
)
from accord.games.calendar.protocols.messages import Typed as Message


@dataclass
class SubRound:
    """One offer set in flight."""

    number: int
    plans: list[Plan]
    levels: dict[int, int]
    """Plan id -> the initiator's own level."""
    offered: dict[int, list[int]]
    """Scorer -> plan ids it was offered."""
    sent_at: int
    concerned: dict[int, list[int]] = field(default_factory=dict)
    """Plan id -> the seats whose scores it needs: the other participants and the outside
    participants of the meetings it moves."""
    scores: dict[int, dict[int, int]] = field(default_factory=dict)


class DsmAgent(ProtocolAgent):
    """One DSM seat with preset `params` (see the module docstring)."""

    def __init__(self, params: DsmParams) -> None:
        super().__init__()
        self.params = params
        self.protocol = params.name
        self.points = 0
        """Running point balance (App. D.3 score-cost bookkeeping)."""
        self.start_round(None)

    def start_round(self, view: View | None) -> None:
        self._pool: list[Candidate] | None = None
        self._sub: SubRound | None = None
        self._subs: list[SubRound] = []
        self._next_id = 0
        self._finished = False
        self._agreed: Plan | None = None
        self._paid = 0
        """Scoring cost this seat owes for the current meeting, settled at the decision."""
        self._replies: list[tuple[int, Scores]] = []
        self._p_hat = 1.0
        self._walked = False
        """Whether DECISION left the agreed plan (logged in the status)."""

    # -- scorer ------------------------------------------------------------------------------
    def score(self, view: View, plan: Plan) -> int:
        """This seat's satisfaction level for `plan`."""
        slot = plan.slot if view.is_participant else None
        if self.params.chains == "release":
            if slot is None and not dsm_chains.concerns(view.calendar, plan.moves):
                return D - 1
            cost = dsm_chains.plan_cost(view.calendar, slot, plan.moves)
        else:
            cost = plan_cost(view.calendar, slot, plan.moves)
        return level(cost, self.params.scale, view.cost_display)

    def receive(self, view: View, sender: int, message: Message) -> None:
        if isinstance(message, Proposals) and sender == view.initiator:
            plans = [Plan(pid, slot, moves) for pid, slot, moves in message.plans]
            scores = [(p.id, self.score(view, p)) for p in plans]
            self._paid += sum(scoring_cost(s) for _, s in scores)
            reply = Scores(meeting=view.meeting_id, sub=message.sub, scores=scores)
            self._replies.append((sender, reply))
        elif isinstance(message, Scores) and self._sub is not None:
            if message.sub == self._sub.number:
                self._sub.scores.setdefault(sender, {}).update(message.scores)
        elif isinstance(message, DsmDecision) and sender == view.initiator:
            self.points += message.reward - self._paid
            self._paid = 0
            self._agreed = Plan(message.plan, message.slot, message.moves)

    # -- initiator ---------------------------------------------------------------------------
    def talk(self, view: View) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        for sender, reply in self._replies:
            calls += route(view, [sender], reply)
        self._replies = []
        if view.seat == view.initiator and view.is_participant and not self._finished:
            calls += self._lead(view)
        return calls

    def _lead(self, view: View) -> list[dict[str, Any]]:
        if self._pool is None:
            self._pool = candidate_plans(view, self.params)
            self._p_hat = p_hat(view.calendar, len(view.others))
            return self._offer(view)
        sub = self._sub
        if sub is None:
            return []
        missing = set(sub.offered) - set(sub.scores)
        if missing and view.turn - sub.sent_at < DEADLINE_SWEEPS:
            return []
        best = self._best(sub)
        if best is not None:
            return self._decide(view, sub, best)
        if not self._pool or not self._continue():
            self._finished = True
            if self.params.fallback:
                return self._decide(view, sub, self._least_concession())
            return []
        return self._offer(view)

    def _continue(self) -> bool:
        """Whether another sub-round is worth it (module docstring, step 4)."""
        if self.params.one_offer:
            return False
        if self.params.exhaustive:
            return True
        assert self._pool is not None
        _, u = offer_size(self._p_hat, [c.level for c in self._pool], self.params)
        return u > -self.params.beta

    def _offer(self, view: View) -> list[dict[str, Any]]:
        assert self._pool is not None
        if not self._pool:
            self._finished = True
            return []
        size, _ = offer_size(self._p_hat, [c.level for c in self._pool], self.params)
        batch, self._pool = self._pool[:size], self._pool[size:]
        plans = []
        for c in batch:
            plans.append(Plan(self._next_id, c.slot, c.moves))
            self._next_id += 1
        levels = {p.id: c.level for p, c in zip(plans, batch, strict=True)}
        offered = {a: [p.id for p in plans] for a in view.others}
        concerned = {p.id: list(view.others) for p in plans}
        for plan in plans:
            for mid, src, _ in plan.moves:
                item = view.calendar[src]
                if item is None or item.id != mid:
                    continue
                for a in item.participants:
                    if a != view.seat and a not in view.participants:
                        offered.setdefault(a, []).append(plan.id)
                        if a not in concerned[plan.id]:
                            concerned[plan.id].append(a)
        if self.params.offer_scope == "all":
            offered = {a: [p.id for p in plans] for a in offered}
        sub = SubRound(len(self._subs) + 1, plans, levels, offered, view.turn, concerned)
        self._sub = sub
        self._subs.append(sub)
        if not offered:
            return self._decide(view, sub, plans[0]) if plans else []
        calls: list[dict[str, Any]] = []
        for a, ids in offered.items():
            mine = [p.wire() for p in plans if p.id in ids]
            offer = Proposals(meeting=view.meeting_id, sub=sub.number, plans=mine)
            calls += route(view, [a], offer)
        return calls

    def _rank(self, sub: SubRound, plan: Plan) -> tuple[bool, tuple[int, int, int, int]]:
        """Whether `plan` is fully feasible, and its rank (lower is better) under
        ``rank="loss"``: (total loss Σ (D-1-s), scorers counted, slot, id) over the initiator
        and the seats the plan concerns, a missing score counting 0, as the release's client
        ranks plans (module docstring, step 4)."""
        levels = [sub.levels[plan.id]]
        levels += [sub.scores.get(a, {}).get(plan.id, 0) for a in sub.concerned[plan.id]]
        loss = sum(D - 1 - s for s in levels)
        return min(levels) > 0, (loss, len(levels), plan.slot, plan.id)

    def _best(self, sub: SubRound) -> Plan | None:
        """The fully feasible plan ranked first (`_rank`); with ``rank="offer"`` the least
        total concession Σ (D-1-s) over the initiator and every scorer (a scorer a plan does
        not concern concedes nothing), earlier plans on ties."""
        if self.params.rank == "loss":
            ranked = [(r, p) for p in sub.plans for ok, r in [self._rank(sub, p)] if ok]
            return min(ranked, key=lambda x: x[0])[1] if ranked else None
        best: tuple[int, Plan] | None = None
        for plan in sub.plans:
            levels = [sub.levels[plan.id]]
            levels += [s[plan.id] for s in sub.scores.values() if plan.id in s]
            if min(levels) <= 0:
                continue
            concession = sum(D - 1 - s for s in levels)
            if best is None or concession < best[0]:
                best = (concession, plan)
        return None if best is None else best[1]

    def _least_concession(self) -> Plan:
        """The offered plan with the least total concession, infeasible scores included (a 0
        concedes D-1), earlier plans on ties: what the release's initiator announces when no
        plan is fully feasible (module docstring, step 5); with ``rank="loss"`` the plan
        ranked first by `_rank` whether feasible or not."""
        if self.params.rank == "loss":
            every = [(self._rank(sub, p)[1], p) for sub in self._subs for p in sub.plans]
            return min(every, key=lambda x: x[0])[1]
        ranked: list[tuple[int, int, Plan]] = []
        for sub in self._subs:
            for plan in sub.plans:
                levels = [sub.levels[plan.id]]
                levels += [
                    s.get(plan.id, 0) for a, s in sub.scores.items() if plan.id in sub.offered[a]
                ]
                ranked.append((sum(D - 1 - s for s in levels), plan.id, plan))
        return min(ranked, key=lambda r: (r[0], r[1]))[2]

    def _decide(self, view: View, sub: SubRound, plan: Plan) -> list[dict[str, Any]]:
        """Settle points, record the agreement and announce it (module docstring)."""
        self._finished = True
        self._agreed = plan
        paid: dict[int, int] = {}
        for earlier in self._subs:
            for a, scores in earlier.scores.items():
                paid[a] = paid.get(a, 0) + sum(scoring_cost(s) for s in scores.values())
        if self.params.decision_to == "plan":
            told = next(s.concerned[plan.id] for s in self._subs if plan.id in s.concerned)
            paid = {a: paid.get(a, 0) for a in told}
        rewards: dict[int, int] = {}
        for a, scores in sub.scores.items():
            if plan.id in scores:
                positive = sum(1 for s in scores.values() if s > 0)
                rewards[a] = reward(scores[plan.id], positive, len(sub.offered[a]))
        rewards = {a: r for a, r in rewards.items() if a in paid}
        self.points += sum(paid.values()) - sum(rewards.values())
        calls: list[dict[str, Any]] = []
        for a in sorted(paid):
            decision = DsmDecision(
                meeting=view.meeting_id,
                plan=plan.id,
                slot=plan.slot,
                moves=plan.moves,
                reward=rewards.get(a, 0),
            )
            calls += route(view, [a], decision)
        return calls

    # -- actions -----------------------------------------------------------------------------
    def voluntary(self, view: View) -> list[dict[str, Any]] | None:
        if self._agreed is None or not self._agreed.moves:
            return None
        return build_batch(
            view.calendar,
            meeting_id=view.meeting_id,
            slot=None,
            moves=self._agreed.moves,
            protocol=self.protocol,
        )

    def decide(self, view: View) -> list[dict[str, Any]] | None:
        if self.params.fallback and self.params.walk == "schedulable":
            return self._walk(view)
        batch = None
        if self._agreed is not None:
            batch = build_batch(
                view.calendar,
                meeting_id=view.meeting_id,
                slot=self._agreed.slot,
                moves=self._agreed.moves,
                protocol=self.protocol,
            )
        if batch is None and self.params.fallback:
            return first_clearable(view, self.protocol)
        return batch

    def _walk(self, view: View) -> list[dict[str, Any]]:
        """DECISION as the release's client does it (module docstring, step 5): the first
        attempt builds the agreed plan, on the agreed slot when this seat can schedule there,
        else on its first schedulable slot; attempt k > 1 takes the k-th schedulable slot. A
        seat without an agreement, or that cannot build the plan on that slot (the slot holds
        a meeting the plan does not move), submits an empty batch, which the game rejects and
        asks again."""
        if self._agreed is None:
            self._walked = True
            return []
        slots = schedulable_slots(view.calendar)
        slot: int | None = self._agreed.slot
        if view.attempt > 1 or slot not in slots:
            index = view.attempt - 1
            slot = slots[index] if index < len(slots) else None
        if view.attempt > 1 or slot != self._agreed.slot:
            self._walked = True
        if slot is None:
            return []
        batch = build_batch(
            view.calendar,
            meeting_id=view.meeting_id,
            slot=slot,
            moves=self._agreed.moves,
            protocol=self.protocol,
        )
        if batch is None:
            self._walked = True
        return batch or []

    def status(self) -> dict[str, Any]:
        agreed = None if self._agreed is None else self._agreed.slot
        out = super().status() | {"agreed": agreed, "points": self.points}
        return out | {"fallback": True} if self._walked else out


def first_clearable(view: View, protocol: str) -> list[dict[str, Any]] | None:
    """The batch for the lowest slot this seat can clear alone (free, or a movable errand with
    a landing slot), moving no meeting: the release client's DECISION fallback (step 5)."""
    for slot in range(view.num_slots):
        batch = build_batch(view.calendar, meeting_id=view.meeting_id, slot=slot, protocol=protocol)
        if batch is not None:
            return batch
    return None
