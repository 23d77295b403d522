"""How the example A2A agent plays, from the structured observation alone.

`Strategy.reply(request, structured, error)` returns the reply for one decision: an object
(sent as a data part) or text (sent as a text part) when the request has no reply schema.
``request["kind"]`` says which decision it is; ``structured`` holds the facts. Numbers in a
data part arrive as floats (A2A carries them as doubles): read them with `num`.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any


def num(value: Any) -> int:
    """A whole number that travelled as a double."""
    return round(float(value))


class Strategy:
    """One seat's memory across the decisions of one game."""

    def __init__(self) -> None:
        self.agreed: dict[int, int] = {}
        """Calendar: the slot agreed for each meeting id."""
        self.known: dict[int, list[int]] = {}
        """Sorting: every agent's list seen so far."""
        self.shared = False

    def reply(self, request: dict[str, Any], facts: dict[str, Any], error: str | None) -> Any:
        kind = request.get("kind")
        schema = request.get("reply_schema")
        if kind == "reflect":
            return {"reflection": "Sharing plans early kept our totals close to the best."}
        if kind == "commands":
            return self.sorting(facts)
        if kind in ("talk", "decide") and "calendar" in facts:
            return self.calendar(kind, facts, schema or {})
        if kind == "talk" and "market" in facts:
            return self.negotiation(facts, schema, cautious=error is not None)
        return minimal(schema) if schema else ""

    # -- calendar (CalBench): agree on the lowest free slot, then schedule there -----------
    def calendar(self, kind: str, facts: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        meeting = facts.get("meeting") or {}
        if not facts.get("is_participant") or "id" not in meeting:
            return {"thinking": "Not my meeting.", "actions": []}
        mid = num(meeting["id"])
        free = [i for i, item in enumerate(facts.get("calendar", [])) if item is None]
        for message in facts.get("inbox", []):
            found = re.search(r"slot (\d+)", str(message.get("content", "")))
            if found and num(message.get("meeting_id", mid)) == mid:
                slot = int(found.group(1))
                if slot in free:
                    self.agreed.setdefault(mid, slot)
        slot = self.agreed.get(mid, free[0] if free else 0)
        if kind == "decide":
            return {
                "thinking": f"Scheduling M{mid} at the agreed slot {slot}.",
                "actions": [{"type": "schedule", "meeting_id": mid, "slot": slot}],
            }
        self.agreed.setdefault(mid, slot)
        allowed = _dm_recipients(schema)  # every seat but mine
        others = [num(p) for p in meeting.get("participants", []) if num(p) in allowed]
        content = f"Proposal for meeting M{mid}: slot {slot}. Please schedule it there."
        actions = [{"type": "dm", "to": p, "content": content} for p in others[:3]]
        return {"thinking": "Proposing the lowest free slot.", "actions": actions}

    # -- negotiation: buy for the project with the best reward the budget allows -----------
    def negotiation(
        self, facts: dict[str, Any], schema: dict[str, Any] | None, cautious: bool
    ) -> dict[str, Any]:
        choices = action_choices(schema)
        if cautious or not choices:
            choice = choices[0] if choices else {}
            return {"thinking": "", "speech": "Deciding now.", "action": {k: 0 for k in choice}}
        market = facts.get("market") or {}
        names = {str(k): str(v) for k, v in (facts.get("names") or {}).items()}
        costs = {names.get(k, k): float(v) for k, v in (market.get("costs") or {}).items()}
        # At most half of each supply: the partner buys from the same pool, and asking for
        # more than it together annuls the round.
        room = {names.get(k, k): num(v) // 2 for k, v in (market.get("supply") or {}).items()}
        budget = float(market.get("budget", 0))
        said = str(facts.get("partner_said") or "")
        if not said and num(facts.get("my_messages", 0)) == 0:
            return {"thinking": "", "speech": "What will you buy this round?", "action": None}
        for name, amount in _claims(said).items():  # what the partner said it buys
            if name in room:
                room[name] = max(0, num(market["supply"].get(_key(names, name), 0)) - amount)
        best: tuple[float, dict[str, int]] = (0.0, {k: 0 for k in choices[0]})
        for project in facts.get("projects", []):
            needs = {names.get(k, k): num(v) for k, v in project["requirements"].items()}
            reward = float(project["reward"])
            per_run = sum(costs.get(k, 1.0) * v for k, v in needs.items())
            for choice in choices:
                if not needs or not set(needs) <= set(choice) or per_run <= 0:
                    continue
                caps = [min(choice[k], room.get(k, choice[k])) // v for k, v in needs.items() if v]
                runs = min([int(budget // per_run), *caps])
                if runs > 0 and reward * runs > best[0]:
                    buy = {k: needs.get(k, 0) * runs for k in choice}
                    best = (reward * runs, buy)
        speech = f"I am buying {json.dumps(best[1])}."
        return {"thinking": "Best affordable project.", "speech": speech, "action": best[1]}

    # -- sorting (MAS-Bench): share my list, collect the others', submit my slice ----------
    def sorting(self, facts: dict[str, Any]) -> str:
        me, n, k = num(facts["agent"]), num(facts["n"]), num(facts["k"])
        xs = [num(v) for v in facts["xs"]]
        if num(facts["round"]) == 1 or me not in self.known:
            self.known, self.shared = {me: xs}, False
        for reply in facts.get("replies", []):
            data = reply.get("data") or {}
            for message in data.get("messages", []):
                self.known.update(_lists(str(message.get("body", ""))))
            self.known.update(_lists(str(data.get("content", ""))))
        if len(self.known) >= n:
            flat = [v for j in range(n) for v in self.known.get(j, [])]
            task = facts.get("task")
            if task == "max":
                result = [max(flat)]
            elif task == "prefix_sum":
                result = list(accumulate(flat))[me * k : (me + 1) * k]
            else:
                result = sorted(flat)[me * k : (me + 1) * k]
            return _fenced([f"submit_result {_list(result)}"])
        backend = facts.get("backend")
        commands: list[str] = []
        text = f"Agent-{me} here. My list: {_list(xs)}"
        if not self.shared:
            self.shared = True
            if backend == "broadcast":
                commands.append(f"broadcast_message {text}")
            elif backend == "p2p":
                commands += [f"send_message {j} {text}" for j in range(n) if j != me]
            else:
                return _fenced([f"write_file list_agent_{me}\n{text}"])
        if backend == "kv":
            commands += [f"read_file list_agent_{j}" for j in range(n) if j not in self.known]
        else:
            commands.append("receive_messages")
        return _fenced(commands)


def minimal(schema: dict[str, Any]) -> Any:
    """The smallest value a simple JSON schema accepts (for decisions this agent does not know)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return minimal(schema[key][0])
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal(props.get(k, {})) for k in schema.get("required", [])}
    if kind == "array":
        return [minimal(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "ok" * max(1, schema.get("minLength", 1))


def action_choices(schema: dict[str, Any] | None) -> list[dict[str, int]]:
    """Negotiation: each allowed purchase's resources and their maximum amounts."""
    if not schema:
        return []
    action = schema.get("properties", {}).get("action", {})
    found: list[dict[str, int]] = []
    stack = [action]
    while stack:
        node = stack.pop(0)
        stack += node.get("anyOf", []) + node.get("oneOf", [])
        if node.get("type") == "object" and node.get("properties"):
            found.append({k: num(v.get("maximum", 0)) for k, v in node["properties"].items()})
    return found


def _dm_recipients(schema: dict[str, Any]) -> set[int]:
    """Calendar: the seats a direct message may go to (the reply schema lists them)."""
    items = schema.get("properties", {}).get("actions", {}).get("items", {})
    for option in items.get("anyOf", [items]):
        props = option.get("properties", {})
        if props.get("type", {}).get("const") == "dm":
            return {num(v) for v in props.get("to", {}).get("enum", [])}
    return set()


def _claims(text: str) -> dict[str, int]:
    """Negotiation: the amounts a message such as 'I am buying {"ice": 10}.' names."""
    found = re.search(r"\{[^{}]*\}", text)
    if not found:
        return {}
    try:
        data = json.loads(found.group(0))
    except ValueError:
        return {}
    return {str(k): num(v) for k, v in data.items() if isinstance(v, int | float)}


def _key(names: dict[str, str], shown: str) -> str:
    return next((k for k, v in names.items() if v == shown), shown)


def _lists(text: str) -> dict[int, list[int]]:
    return {
        int(m.group(1)): [int(v) for v in re.findall(r"-?\d+", m.group(2))]
        for m in re.finditer(r"Agent-(\d+) here\. My list: \[([-\d,\s]*)\]", text)
    }


def _list(values: list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _fenced(commands: list[str]) -> str:
    return "\n".join(f"```\n{c}\n```" for c in commands)
