"""The negotiation replay view (`accord.core.replay`): the market round by round.

Supply and each side's purchase per resource (an overdraw, total demand above supply, annuls
the round: grounding paper §3.1), what each purchase costs against the budget, each side's
projects with the runs it planned and completed, the round's rewards against the oracle's
maximum joint reward (§3.2), and the round's talk beside it. A purchase is shown as soon as
its side decides; the other side only learns it when the round ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accord.core.replay import Frame, Replay, Tone, cell, facts, grid, messages

if TYPE_CHECKING:
    from accord.core.spec import Request
    from accord.traces.schema import Trace


class _State:
    def __init__(self, trace: Trace) -> None:
        sc = trace.scenario
        self.market: dict[str, Any] = sc["market"]
        self.resources = sorted(self.market["supply"])
        self.by_id = {s["id"]: s for s in sc.get("scenarios", [])}
        self.per_round: list[str] = list(sc.get("per_round", []))
        self.rounds = len(self.per_round) or int(trace.config.get("rounds", 0))
        self.sides = [s.name for s in trace.seats] or ["A", "B"]
        self.round = 0
        self.names: dict[str, str] = {r: r for r in self.resources}
        self.oracle_max: int | None = None
        self.purchases: list[dict[str, int] | None] = [None, None]
        self.planned: list[dict[str, int] | None] = [None, None]
        self.result: Mapping[str, Any] | None = None
        self.talk: list[Mapping[str, Any]] = []
        self.totals = [0, 0]

    def apply(self, ev: Mapping[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "round_start":
            self.round = int(ev["round"])
            self.names = {r: str(ev.get("names", {}).get(r, r)) for r in self.resources}
            self.oracle_max = ev.get("oracle_max")
            self.purchases, self.planned, self.result, self.talk = (
                [None, None],
                [None, None],
                None,
                [],
            )
        elif kind in ("decision", "decision_auto_filled") and isinstance(ev.get("purchase"), dict):
            seat = int(ev["seat"])
            self.purchases[seat] = {k: int(v) for k, v in ev["purchase"].items()}
            if isinstance(ev.get("runs"), dict):
                self.planned[seat] = {k: int(v) for k, v in ev["runs"].items()}
        elif kind == "message":
            self.talk.append(ev)
        elif kind == "round_result":
            self.result = ev
            self.purchases = [dict(p) for p in ev["purchases"]]
            for seat, reward in enumerate(ev["rewards"]):
                self.totals[seat] += int(reward)

    def projects(self, seat: int) -> list[dict[str, Any]]:
        if not 0 < self.round <= len(self.per_round):
            return []
        projects: list[dict[str, Any]] = self.by_id[self.per_round[self.round - 1]]["agents"][seat]
        return projects

    def market_grid(self) -> dict[str, Any]:
        supply = self.market["supply"]
        costs = self.market["costs"]
        budget = self.market["budget"]
        cols = [f"{self.names[r]} ({r})" for r in self.resources] + ["spent / budget"]
        rows = [
            (
                "supply",
                [cell(str(supply[r]), "muted") for r in self.resources]
                + [cell(f"{budget:g} each", "muted")],
            )
        ]
        total = dict.fromkeys(self.resources, 0)
        for seat, bought in enumerate(self.purchases):
            if bought is None:
                rows.append(
                    (
                        f"{self.sides[seat]} buys",
                        [cell("…", "muted", "not decided yet")] * len(cols),
                    )
                )
                continue
            spent = sum(costs[r] * q for r, q in bought.items())
            for r, q in bought.items():
                total[r] = total.get(r, 0) + q
            cells = [
                cell(str(bought.get(r, 0)), "busy" if bought.get(r) else None)
                for r in self.resources
            ]
            cells.append(cell(f"{spent:g} / {budget:g}", "bad" if spent > budget else None))
            rows.append((f"{self.sides[seat]} buys", cells))
        over = [
            cell(
                str(total[r]),
                "bad" if total[r] > supply[r] else "good",
                "overdraw: more than the supply" if total[r] > supply[r] else "within supply",
            )
            for r in self.resources
        ]
        rows.append(("total demand", [*over, cell("")]))
        return grid("Supply and purchases per resource (overdraw in red)", cols, rows)

    def project_grid(self) -> dict[str, Any]:
        cols = [self.names[r] for r in self.resources] + ["reward", "planned runs", "runs done"]
        rows = []
        done: list[dict[str, int] | None] = self.result["runs"] if self.result else [None, None]
        for seat in (0, 1):
            for p in self.projects(seat):
                name = p["name"]
                req = [
                    cell(
                        str(p["requirements"].get(r, "")),
                        "busy" if r in p["requirements"] else None,
                    )
                    for r in self.resources
                ]
                planned = (self.planned[seat] or {}).get(name)
                ran_runs = done[seat]
                ran: int | str | None = None if ran_runs is None else ran_runs.get(name, 0)
                tone: Tone | None = None if ran is None else ("good" if ran else "muted")
                annulled = bool(self.result and self.result.get("annulled"))
                if annulled and ran:
                    # An annulled round earns nothing: these runs would have been completed.
                    ran, tone = f"0 (would be {ran})", "bad"
                rows.append(
                    (
                        f"{self.sides[seat]} · {name}",
                        [
                            *req,
                            cell(str(p["reward"])),
                            cell("–" if planned is None else str(planned)),
                            cell("–" if ran is None else str(ran), tone),
                        ],
                    )
                )
        return grid("Projects (requirements per run, reward per run)", cols, rows)

    def frame(self) -> Frame:
        res = self.result
        if self.round == 0:
            title = "Before the first round"
        else:
            stage = "result" if res else ("deciding" if any(self.purchases) else "talk")
            title = f"Round {self.round} of {self.rounds} · {stage}"
        info: list[Any] = [
            ("round", f"{self.round} of {self.rounds}"),
            ("oracle's max joint reward", self.oracle_max),
        ]
        if res is not None:
            rewards = res["rewards"]
            info += [
                ("rewards", " / ".join(f"{self.sides[s]} {rewards[s]}" for s in (0, 1))),
                ("joint reward", res["joint_reward"], "good" if res.get("optimal") else None),
                ("efficiency", f"{100 * float(res['efficiency']):.0f}%"),
            ]
            if res.get("annulled"):
                info.append(("annulled", "yes: total demand exceeded supply", "bad"))
        info.append(
            ("totals so far", " / ".join(f"{self.sides[s]} {self.totals[s]}" for s in (0, 1)))
        )
        talk = [
            {
                "from": self.sides[int(e["seat"])],
                "to": self.sides[1 - int(e["seat"])],
                "text": str(e.get("speech", "")),
                "current": False,
                "note": None
                if e.get("delivered", True)
                else "not delivered (the other side had decided)",
            }
            for e in self.talk
        ]
        return {
            "title": title,
            "panels": [
                self.market_grid(),
                self.project_grid(),
                facts("Round", info),
                messages(f"Talk of round {self.round}", talk),
            ],
        }


def replay(trace: Trace) -> Replay:
    """The negotiation replay of `trace`: one step per event."""
    state = _State(trace)
    out = Replay()
    for ev in trace.events:
        state.apply(ev)
        frame = state.frame()
        if ev.get("type") == "message" and state.talk and state.talk[-1] is ev:
            frame["panels"][3]["items"][-1]["current"] = True
        seat = ev.get("seat")
        who = f" · {state.sides[seat]}" if isinstance(seat, int) and 0 <= seat < 2 else ""
        out.add(frame, state.round, f"{ev.get('type', '?')}{who}")
    return out


def seat_frame(request: Request) -> Frame | None:
    """What a person at `request.seat` sees above their controls: the market both sides
    know (§3.1), their own projects (never the partner's) and where the game is. Built from
    the seat's own request only."""
    info = request.info
    if info.get("phase") == "reflect" or "market" not in info:
        return None
    market = info["market"]
    names: dict[str, str] = info["names"]
    resources = sorted(market.supply)
    cols = [f"{names.get(r, r)} ({r})" for r in resources]
    market_rows = [
        ("supply (both of you)", [cell(str(market.supply[r]), "muted") for r in resources]),
        ("unit cost", [cell(f"{market.costs[r]:g}") for r in resources]),
    ]
    own = [
        (
            p.name,
            [
                cell(str(p.requirements.get(r, "")), "busy" if r in p.requirements else None)
                for r in resources
            ]
            + [cell(str(p.reward))],
        )
        for p in info["projects"]
    ]
    return {
        "title": f"Round {info['round']} of {info['rounds']} · {info['phase']}",
        "panels": [
            grid("The market", cols, market_rows),
            grid("Your projects (needs per run)", [*cols, "reward per run"], own),
            facts(
                "You",
                [
                    ("budget", f"{market.budget:g}"),
                    ("resource types per purchase", f"at most {market.max_types}"),
                    ("partner has decided", "yes" if info.get("partner_decided") else "no"),
                ],
            ),
        ],
    }
