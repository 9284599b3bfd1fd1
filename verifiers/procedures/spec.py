"""What a procedure claim's ``trace:`` may say; validated at load time (light: no torch).

``trace:`` names a run of tinygpt (``run:``), the switches of that run, which scopes are
opened (``expand:``: a block shows its LayerNorm, attention, residual, FFN) and which
operations the note leaves out of its summary (``omit:``, with ``why:``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RUNS", "TraceSpec", "parse_trace"]

_MODEL = {"layers": int, "heads": int, "positions": ("none", "sinusoidal", "rope"),
          "arrangement": ("pre", "post"), "layer_norm": bool, "final_norm": bool, "ffn": bool,
          "causal": bool}
#: run -> {option: type or choices}
RUNS: dict[str, dict[str, Any]] = {
    "forward": dict(_MODEL),
    "training": dict(_MODEL),
    "decoding": {**_MODEL, "strategy": ("greedy", "sample"), "temperature": float,
                 "top_k": int, "top_p": float, "new_tokens": int},
    "attention": {"scale": bool, "causal": bool},
    "bpe": {},
}
KEYS = ("run", "expand", "omit", "why")


@dataclass(frozen=True)
class TraceSpec:
    run: str
    options: dict[str, Any] = field(default_factory=dict)
    expand: tuple[str, ...] = ()
    omit: tuple[str, ...] = ()
    why: str = ""


def _option(name: str, kind: Any, value: Any) -> str | None:
    if isinstance(kind, tuple):
        return None if value in kind else f"{name}: one of {', '.join(kind)}"
    if kind is bool:
        return None if isinstance(value, bool) else f"{name}: true or false"
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 8
        return None if ok else f"{name}: an integer from 0 to 8"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 10
    return None if ok else f"{name}: a number in (0, 10]"


def _names(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(f"trace: {key!r} is a list of operation names")
        return ()
    return tuple(value)


def parse_trace(data: Any) -> tuple[TraceSpec | None, list[str]]:
    """A validated spec and the problems found (messages without a place)."""
    from verifiers.procedures.read import operations

    if not isinstance(data, dict):
        return None, ["'trace' is a mapping: {run: forward|training|decoding|attention|bpe, …}"]
    run = data.get("run")
    if run not in RUNS:
        return None, [f"trace: run must be one of {', '.join(RUNS)}, not {run!r}"]
    problems: list[str] = []
    allowed = RUNS[run]
    options = {}
    for key, value in data.items():
        if key in KEYS:
            continue
        if key not in allowed:
            listed = ", ".join(allowed) or "none"
            problems.append(f"trace: unknown option {key!r} for run {run!r} (it takes: {listed})")
            continue
        problem = _option(key, allowed[key], value)
        if problem:
            problems.append(f"trace: {problem}")
        else:
            options[key] = value
    expand = _names(data.get("expand"), "expand", problems)
    omit = _names(data.get("omit"), "omit", problems)
    known = operations()
    for name in omit:
        if name.rsplit(".", 1)[-1] not in known:
            problems.append(f"trace: omit: {name!r} is not an operation of the vocabulary")
    why = data.get("why")
    if omit and not (isinstance(why, str) and why.strip()):
        problems.append("trace: omitting operations needs a 'why' (what the note leaves out)")
    return TraceSpec(run, options, expand, omit, why if isinstance(why, str) else ""), problems
