"""GitHub Actions output: annotations on the note lines, and a Markdown job summary.

GitHub shows at most 10 error annotations per step, so the annotations go to
the root causes first (an error inherited from an upstream claim is shown
after its root); everything, annotated or not, is in the job summary, which is
appended to ``$GITHUB_STEP_SUMMARY`` when that is set.
"""

from __future__ import annotations

from verifiers.textsafe import markdown_cell, printable
from verifiers.verdicts import RunResult, Verdict

MAX_ANNOTATIONS = 10

__all__ = ["MAX_ANNOTATIONS", "annotations", "job_summary", "ordered_failures"]


def _data(text: str) -> str:
    """A workflow command's message, per GitHub's escaping (control characters shown)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def ordered_failures(result: RunResult) -> list[Verdict]:
    """Failing claims, grouped by root cause: each root, then what it causes, in note order."""
    failing = [v for v in result.verdicts if not v.passed]
    by_id = {v.id: v for v in failing}

    def root(v: Verdict) -> str:
        return v.root_cause if v.root_cause in by_id else v.id

    def place(v: Verdict) -> tuple[str, int, int, str]:
        where = v.where or (v.line, 0)
        return (v.note or v.file, where[0], where[1], v.id)

    return sorted(failing, key=lambda v: (place(by_id[root(v)]), root(v) != v.id, place(v)))


def _location(result: RunResult, v: Verdict) -> tuple[str, int, int]:
    if v.claim_place is not None or not v.note:
        line, col = v.claim_place or (v.line, 1)
        return v.file, line, col
    line, col = v.where or (1, 1)
    return result.note_path(v.note), line, col


def annotations(result: RunResult) -> list[str]:
    """``::error file=…,line=…,col=…,title=…::message`` for the first root causes."""
    out = []
    for v in ordered_failures(result)[:MAX_ANNOTATIONS]:
        path, line, col = _location(result, v)
        title = f"notecheck {v.status}: {v.id}"
        message = " ".join(v.message.split()) + f" [{v.file}:{v.line}]"
        if v.root_cause and v.root_cause != v.id:
            message += f" (root cause: {v.root_cause})"
        out.append(f"::error file={_property(path)},line={line},col={col},"
                   f"title={_property(title)}::{_data(message)}")
    return out


def _cell(text: str) -> str:
    """Untrusted text (ids, messages, paths) as one literal Markdown table cell."""
    return markdown_cell(text)


def job_summary(result: RunResult) -> str:
    """Every failing claim as a Markdown table, root causes first."""
    failures = ordered_failures(result)
    lines = ["## notecheck", ""]
    if not failures:
        lines.append(f"All {len(result.verdicts)} claims verified or known.")
        return "\n".join(lines) + "\n"
    lines += [f"{len(failures)} of {len(result.verdicts)} claims fail "
              f"(the first {min(MAX_ANNOTATIONS, len(failures))} are annotated).", "",
              "| where | status | claim | root cause | message |", "|---|---|---|---|---|"]
    for v in failures:
        path, line, col = _location(result, v)
        root = v.root_cause if v.root_cause and v.root_cause != v.id else ""
        lines.append(f"| {_cell(f'{path}:{line}:{col}')} | {_cell(v.status)} "
                     f"| {_cell(v.id)} ({_cell(f'{v.file}:{v.line}')}) "
                     f"| {_cell(root)} | {_cell(v.message)} |")
    return "\n".join(lines) + "\n"
