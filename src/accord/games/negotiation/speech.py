"""Who-gets-what detection in cheap talk (seed 004 §5.5 deference, §5.6 stated-vs-actual).

Rule-based and deterministic, over the round's themed resource names. A *quantity* is
"N name", "N x name", "N units of name", "N remaining name", "name=N", "name: N" or
"name×N", with N a number or a word from zero to ten; ranges ("2-3 gold"), decimals and
money ("$9") are skipped. Each quantity gets a direction:

1. **Postfix binding** (quantity-first phrasings): a quantity followed by "for you", "to
   you", "go(es) to you" is partner-directed; followed by "for me" / "to me", self-directed.
   Quantities chained to it by "and", "plus", "&" or a comma share its direction ("6 stone
   and 2 gold for you").
2. **Forward clauses**: otherwise, a quantity inside the clause opened by a cue takes the
   cue's direction. Partner cues: "you take/get/buy/have/keep/purchase/grab" (with could,
   can, should, will, just, instead, ...), "please take", "for you:", "you:", "your share:",
   "leave(s)/give(s) you (with)". Self cues: "I take/buy/get/purchase/grab", "I'll", "I will",
   "I'm going to", "I plan to", "I'm taking", "I'll be taking", "let me take", "for me:",
   "mine:", "my share:". Hedges ("I could take", "I'd take") are not cues. A partner clause
   ends at the sentence end or at "I", "me", "my", "mine"; a self clause at the sentence end
   or at "you"/"your".

`evaluate` scores the detector on a labelled set (precision and recall over (resource,
units) pairs); the set of 46 utterances and its numbers are in docs/negotiation.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

_WORDS = "zero one two three four five six seven eight nine ten"
_NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_WORDS.split(" "))}
_NUM = r"(?<![\w$.\-–])(\d+|" + "|".join(_NUMBER_WORDS) + r")(?!\d|\.\d|\s*[-–]\s*\d)"
_APOS = "['’]"
_OTHER_CUE = re.compile(
    (
        r"\byou(?:'ll)?\s+(?:(?:could|can|should|would|will|might|then|just|instead|only"
        r"|go ahead and)\s+)?(?:take|get|buy|have|keep|purchase|grab)\b"
        r"|\bplease\s+(?:take|buy|get|grab|purchase)\b"
        r"|\bfor you\s*(?:[:=\-–]|(?=\d))|\byou\s*:|\byour\s+(?:share|part|portion)\s*[:=\-–]"
        r"|\b(?:leave|leaves|leaving|give|gives|giving)\s+you(?:\s+with)?\b"
    ).replace("'", _APOS),
    re.IGNORECASE,
)
_SELF_CUE = re.compile(
    (
        r"\bI(?:'ll| will| shall|'m going to| am going to|'m| am)?"
        r"(?:\s+(?:plan|planning|intend|intending) to)?"
        r"\s+(?:(?:just|then|only|instead|now|also|definitely)\s+)?(?:take|buy|get|purchase|grab)\b"
        r"|\bI(?:'m| am)(?:\s+(?:just|only|now|also))?\s+(?:taking|buying|getting|purchasing"
        r"|grabbing)\b|\bI'll be (?:taking|buying|getting)\b"
        r"|\blet me\s+(?:take|buy|get|grab|purchase)\b"
        r"|\bfor me\s*(?:[:=\-–]|(?=\d))|\b(?:mine|my share)\s*[:=\-–]"
    ).replace("'", _APOS),
    re.IGNORECASE,
)
_END = r"[.!?;\n](?!\d)"
_OTHER_END = re.compile(_END + r"|\b(?:I|I['’]\w+|me|my|mine)\b", re.IGNORECASE)
_SELF_END = re.compile(_END + r"|\b(?:you|your|yours)\b", re.IGNORECASE)
_POSTFIX = re.compile(
    r"\s*(?:(?:is|are|go|goes|would go|will go)\s+)?(?:for|to)\s+(you|me)(?:rself|self)?\b",
    re.IGNORECASE,
)
_CHAIN = re.compile(r"\s*(?:,|and|&|plus|\+)\s*(?:and\s+)?", re.IGNORECASE)

Mention = tuple[int, int, str, int]  # start, end, resource id, units


@lru_cache(maxsize=256)
def _resource_regex(names: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    lookup: dict[str, str] = {}
    alts: list[str] = []
    for rid, name in names:
        key = name.lower().replace(" ", "_")
        lookup[key] = rid
        alts.append(re.escape(key).replace("_", "[_ ]"))
    res = "|".join(sorted(alts, key=len, reverse=True)) or r"(?!)"
    qty_first = (
        _NUM
        + r"\s*(?:x|×|\*)?\s*(?:units?\s+of\s+)?(?:(?:remaining|other|more|extra|additional)\s+)?("
        + res
        + r")(?:e?s)?\b"
    )
    name_first = r"\b(" + res + r")(?:e?s)?\s*(?:=|:|×|x|\*)\s*" + _NUM
    return re.compile(f"{qty_first}|{name_first}", re.IGNORECASE), lookup


def _mentions(text: str, names: Mapping[str, str]) -> list[Mention]:
    pattern, lookup = _resource_regex(tuple(sorted(names.items())))
    out: list[Mention] = []
    for m in pattern.finditer(text):
        num, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        n = int(num) if num.isdigit() else _NUMBER_WORDS[num.lower()]
        out.append((m.start(), m.end(), lookup[name.lower().replace(" ", "_")], n))
    return out


def _postfix_directions(text: str, mentions: list[Mention]) -> dict[int, bool]:
    """Index of a mention -> True (partner) / False (self) for quantity-first phrasings."""
    bound: dict[int, bool] = {}
    for i in range(len(mentions) - 1, -1, -1):
        m = _POSTFIX.match(text, mentions[i][1])
        if m:
            bound[i] = m.group(1).lower() == "you"
        elif i + 1 in bound and _CHAIN.fullmatch(text, mentions[i][1], mentions[i + 1][0]):
            bound[i] = bound[i + 1]
    return bound


def directed(text: str, names: Mapping[str, str]) -> tuple[dict[str, int], dict[str, int]]:
    """(partner-directed, self-directed) quantities ``{resource id: units}`` in one message;
    a later quantity of a resource replaces an earlier one."""
    mentions = _mentions(text, names)
    bound = _postfix_directions(text, mentions)
    spans: list[tuple[int, int, bool]] = []
    for cue, end, other in ((_OTHER_CUE, _OTHER_END, True), (_SELF_CUE, _SELF_END, False)):
        for m in cue.finditer(text):
            stop = end.search(text, m.end())
            spans.append((m.end(), stop.start() if stop else len(text), other))
    partner: dict[str, int] = {}
    own: dict[str, int] = {}
    for i, (start, _end, rid, n) in enumerate(mentions):
        if i in bound:
            (partner if bound[i] else own)[rid] = n
            continue
        for lo, hi, other in spans:
            if lo <= start < hi:
                (partner if other else own)[rid] = n
                break
    return partner, own


def proposals_to_partner(text: str, names: Mapping[str, str]) -> dict[str, int]:
    """Partner-directed quantities, e.g. "you take 4 stone" or "4 stone for you"."""
    return directed(text, names)[0]


def self_commitments(text: str, names: Mapping[str, str]) -> dict[str, int]:
    """Self-directed quantities, e.g. "I'll take 6 stone" or "6 stone for me"."""
    return directed(text, names)[1]


def evaluate(items: Iterable[Mapping[str, Any]], names: Mapping[str, str]) -> dict[str, Any]:
    """Precision and recall of both detectors on labelled utterances
    (``{"text", "partner", "own"}``), counted over (resource, units) pairs."""
    out: dict[str, Any] = {}
    rows = list(items)
    for key, index in (("partner", 0), ("own", 1)):
        tp = fp = fn = 0
        for it in rows:
            got = set(directed(it["text"], names)[index].items())
            want = set(dict(it[key]).items())
            tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        out[key] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
        }
    return out
