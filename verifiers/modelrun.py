"""Run a tinygpt worked example on values read from a note (model claims only).

This is the only module of the engine that imports torch, and only when a
claim of kind ``model`` is evaluated.

Global mode runs the example on the exact inputs (float64: about 16
significant digits, far more than any printed value). Local mode receives
intervals (printed values and the rounding they stand for): the example runs
at the midpoints, and each output's radius is propagated to first order with
the Jacobian from autograd, |J|·r, plus float64 round-off, so that "is this
step right given what the note printed?" has the same meaning as for
arithmetic claims.
"""

from __future__ import annotations

import difflib
from typing import Any

import torch
from mpmath import iv, mp

from tinygpt.examples import load_all
from verifiers.expr import ExprError
from verifiers.programs.jail import JailUnavailable

F64 = torch.float64
ROUND_OFF = 1e-12  # relative slack for float64 evaluation of a small example


def _to_tensor(value: Any, pick) -> torch.Tensor:
    if isinstance(value, tuple):
        return torch.stack([_to_tensor(v, pick) for v in value]) if value else torch.zeros(0)
    return torch.tensor(float(pick(value)), dtype=F64)


def _to_value(t: Any, mode: str, radius: torch.Tensor | None = None) -> Any:
    if not isinstance(t, torch.Tensor):
        t = torch.tensor(float(t), dtype=F64)
    t = t.detach().to(F64)
    if t.dim() == 0:
        x = mp.mpf(float(t))
        if mode == "point":
            return x
        r = mp.mpf(float(radius)) if radius is not None else mp.mpf(0)
        r += abs(x) * ROUND_OFF + mp.mpf(10) ** -300
        return iv.mpf([x - r, x + r])
    return tuple(_to_value(t[i], mode, None if radius is None else radius[i])
                 for i in range(t.shape[0]))


def _mid(x: Any) -> Any:
    return x.mid if isinstance(x, iv.mpf) else x


def _radius(x: Any) -> Any:
    return x.delta / 2 if isinstance(x, iv.mpf) else 0


_CACHE: dict[Any, dict[str, Any]] = {}
_CACHE_SIZE = 512


def _frozen(t: torch.Tensor) -> Any:
    values = t.tolist()
    return tuple(_freeze_list(values)) if isinstance(values, list) else values


def _freeze_list(values: list[Any]) -> Any:
    return [tuple(_freeze_list(v)) if isinstance(v, list) else v for v in values]


def run_example(name: str, inputs: dict[str, Any], outputs: tuple[str, ...],
                mode: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate example ``name`` and return the requested outputs as engine values.

    ``extra`` holds non-numeric arguments passed through unchanged (the note
    text a quote matched, for examples that read a printed program or corpus).
    Examples are pure functions of their inputs, so a run is computed once per
    distinct (example, inputs, outputs, mode) in a process: many claims quote
    different printed values of the same worked example.
    """
    extra = extra or {}
    with mp.workdps(40):
        key = (name, mode, outputs, tuple(sorted(extra.items())),
               tuple(sorted((k, _frozen(_to_tensor(v, _mid)), _frozen(_to_tensor(v, _radius)))
                            for k, v in inputs.items())))
    if key not in _CACHE:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _run_example(name, inputs, outputs, mode, extra)
    return dict(_CACHE[key])


def _run_example(name: str, inputs: dict[str, Any], outputs: tuple[str, ...],
                 mode: str, extra: dict[str, Any]) -> dict[str, Any]:
    examples = load_all()
    if name not in examples:
        close = difflib.get_close_matches(name, list(examples), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ExprError(f"unknown model example {name!r}{hint}")
    fn = examples[name]
    torch.set_num_threads(1)  # tiny tensors: threads only add contention
    with mp.workdps(40):
        mids = {k: _to_tensor(v, _mid) for k, v in inputs.items()}
        radii = {k: _to_tensor(v, _radius) for k, v in inputs.items()}
    try:
        result = fn(**mids, **extra)
    except JailUnavailable:
        raise  # this machine's problem, not the claim's: the engine reports it uncached
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError) as err:
        raise ExprError(f"model example {name!r} failed: {err}") from None
    missing = [o for o in outputs if o not in result]
    if missing:
        raise ExprError(f"model example {name!r} has no output {missing[0]!r}; it gives "
                        f"{', '.join(sorted(result))}")
    if mode == "point":
        return {o: _to_value(result[o], mode) for o in outputs}
    shapes = {o: torch.as_tensor(result[o], dtype=F64).shape for o in outputs}
    out_radius = {o: torch.zeros(shapes[o], dtype=F64) for o in outputs}
    varying = [k for k, r in radii.items() if _matters(r, mids[k])]
    if varying:
        def flat_outputs(*xs: torch.Tensor) -> torch.Tensor:
            kwargs = {**mids, **extra}
            kwargs.update(zip(varying, xs, strict=True))
            got = fn(**kwargs)
            return torch.cat([torch.as_tensor(got[o], dtype=F64).reshape(-1) for o in outputs])

        # One Jacobian for all outputs: d(outputs)/d(each varying input).
        jac = torch.autograd.functional.jacobian(flat_outputs, tuple(mids[k] for k in varying))
        total = sum(j.reshape(j.shape[0], -1).abs() @ radii[k].reshape(-1)
                    for k, j in zip(varying, jac, strict=True))
        start = 0
        for o in outputs:
            size = out_radius[o].numel()
            out_radius[o] = total[start:start + size].reshape(shapes[o])
            start += size
    return {o: _to_value(torch.as_tensor(result[o], dtype=F64), mode,
                         out_radius[o] + mpmath_slack(result[o])) for o in outputs}


def _matters(radius: torch.Tensor, mid: torch.Tensor) -> bool:
    """A radius below float64 resolution (40-digit rounding of a printed value) is zero."""
    if not radius.numel():
        return False
    return bool((radius > mid.abs() * 2.0**-60).any())


def mpmath_slack(t: Any) -> torch.Tensor:
    """float64 cannot hold the 40-digit midpoints exactly: widen by one unit in the last place."""
    t = torch.as_tensor(t, dtype=F64).detach()
    return t.abs() * 2.0**-52
