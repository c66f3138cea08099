"""What a probe reports: a bug id from the registry and the facts its hint needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.diagnose.registry import bug, prefix_of


@dataclass(frozen=True)
class Finding:
    """A bug a probe recognised, with the measured facts that fill its hint; ``key`` tells apart findings of one
    id that name different things (two slips of the code), so a re-draw confirms only the same one."""

    id: str
    facts: dict = field(default_factory=dict)
    key: str = ""


def own(function: str, suffix: str, *, key: str = "", **facts) -> list[Finding]:
    """``[Finding("<prefix>.<suffix>")]`` when the function's prefix registers that bug, else ``[]``.

    Generic probes name bugs this way, so a function whose family has no such bug
    (no registered id) is simply not diagnosed with it. ``key`` is what a re-draw must find again (a constant).
    """
    bug_id = f"{prefix_of(function)}.{suffix}"
    try:
        bug(bug_id)
    except KeyError:
        return []
    return [Finding(bug_id, facts, key)]
