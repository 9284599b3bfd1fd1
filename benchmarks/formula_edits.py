"""Edits of formulas made checkable (branches `reader`, `formulas4`): a verdict at each line?

    python -m benchmarks.formula_edits

Each edit below is one realistic author slip in a formula that no claim read before (a sign,
a swapped index or product, a dropped factor or term, a wrong condition). All of them are
applied to a copy of the notes at once (each is on its own line and read by its own claim),
``notecheck check`` runs on the copy, and an edit counts as caught when a value whose place is
the edited line is a ``discrepancy``, ``unparsed`` or ``error``. Values that fail on any
other line are listed (they would be false alarms); the unedited notes must pass.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: note -> (line, text on that line, its replacement)
EDITS: dict[str, list[tuple[int, str, str]]] = {
    "architecture-and-training.txt": [
        (252, "a_{3} v_{3}", "a_{2} v_{3}"),
        (443, r"s_{j} = q \cdot k_{j}", r"s_{j} = q \cdot k_{i}"),
        (447, r"{\sqrt{d_{k}}}", "{d_{k}}"),
        (724, r"{\sqrt{d_{k}}}", r"{\sqrt{d}}"),
        (782, "a_{i j} v_{j}", "a_{j i} v_{j}"),
        (854, "a_{j} k_{j}", "a_{j} k_{1}"),
        (860, "x_{j} W_{V}", "W_{V} x_{j}"),
        (937, "x_{苹果} W", "x_{苹果} W + x_{苹果}"),
        (947, "a_{苹果, j} v_{j}", "a_{j, 苹果} v_{j}"),
        (1005, "h_{T} W_{out} + b", "h_{T} W_{out}"),
        (1021, "x_{j} W_{V}", "x_{j}"),
        (1039, r"{\sqrt{d_{k}}}", "{d_{k}}"),
        (1183, "Attention (Q^{(h)}, K^{(h)}, V^{(h)})", "Attention (K^{(h)}, Q^{(h)}, V^{(h)})"),
        (1187, r"Concat (Z^{(1)}, \dots, Z^{(H)}) W_{O}", r"Concat (Z^{(1)}, \dots, Z^{(H)})"),
        (1197, r"R^{H d_{v} \times d}", r"R^{d \times H d_{v}}"),
        (1223, "W_{2} + b_{2}", "W_{2} - b_{2}"),
        (1245, "x + F (x)", "F (x)"),
        (1277, "x_{i} + p_{i}", "x_{i} - p_{i}"),
        (1303, "a_{i j} (X) v_{j}", "a_{j i} (X) v_{j}"),
        (1319, "y = x W", "y = W x"),
        (1341, "X W_{Q} W_{K}^{T} X^{T}", "X W_{Q} W_{K} X^{T}"),
        (1466, r"0, & j \leq i", "0, & j < i"),
        (1584, "(x_{1}, x_{2}, x_{3})_{3}", "(x_{1}, x_{2}, x_{3})_{2}"),
        (1688, r"- \ln P", r"\ln P"),
        (1738, "h_{n} W_{out} + b", "W_{out} h_{n} + b"),
        (1758, r"\sum_{k} e^{ℓ_{k}}", r"\sum_{k} ℓ_{k}"),
        (1835, "黑便 ∣ 前文", "出血 ∣ 前文"),
        (1851, "W_{Q}^{old} - η", "W_{Q}^{old} + η"),
        (2069, r"- \sum_{i = 1}^{n} \ln p_{i}", r"- \sum_{i = 1}^{n - 1} \ln p_{i}"),
        (2105, "w_{old} - η", "w_{old} + η"),
        (2337, "p_{i, t_{i + 1}}", "p_{i, t_{i}}"),
        (2383, r"\partial L}{\partial W_{out}}", r"\partial L}{\partial W_{Q}}"),
        (2465, "t_{i} = w", r"t_{i} \ne w"),
        (2473, "softmax (ℓ_{i})", "softmax (h_{i})"),
        # shape statements
        (927, r"x_{苹果} \in R^{d}", r"x_{苹果} \in R^{n}"),
        (1043, r"A \in R^{n \times n}", r"A \in R^{n \times d}"),
        (1051, r"Z \in R^{n \times d_{v}}", r"Z \in R^{d_{v} \times n}"),
        (1111, r"Q, K \in R^{n \times d_{k}}", r"Q, K \in R^{n \times d}"),
        (1195, r"Z^{(r)} \in R^{n \times d_{v}}", r"Z^{(r)} \in R^{n \times d}"),
        # branch formulas4: waived formulas read (shapes, definitions against tinygpt, a
        # printing up to its row index, restated sides that must be quoted)
        (1734, r"h_{n} \in R^{d_{model}}", r"h_{n} \in R^{n}"),
        (2409, r"W_{E} \in R^{N \times d}", r"W_{E} \in R^{d \times N}"),
        (2455, r"E \in R^{N \times d} .", r"E \in R^{N \times N} ."),
        (2413, "W_{out} = W_{E}^{T}", "W_{out} = W_{E}"),
        (1159, "a_{i j} v_{j}$", "a_{j i} v_{j}$"),
        (396, "k_{i} = x_{i} W_{K}", "k_{i} = x_{i} W_{V}"),
        (2459, r"\in R^{1 \times d} .", r"\in R^{d \times 1} ."),
        (1383, r"F_{L} \circ F_{L - 1}", r"F_{L} \circ F_{L + 1}"),
    ],
    "matrix-by-matrix.txt": [
        (79, "X_input = X + PE", "X_input = X - PE"),
        # (3.2's 除以 √d_k = 1.732 is read by mbm-f4-3-2-divide-by, but an edit of it also blames
        # the definition d_k = 3 it uses, at line 200: tests/test_formulas4_read.py edits it)
        (96, "V = X_input · W_v", "V = W_v · X_input"),
        (256, "A · V", "V · A"),
        (462, "Z · W_linear", "Z"),
    ],
    "lesson1-text-to-distribution.txt": [
        (206, r"p-\mathbf y", r"\mathbf y-p"),
        (331, r"s_j=q\cdot k_j", r"s_j=q\cdot k_1"),
        (332, r"\mathrm{softmax}(s)", r"\mathrm{softmax}(-s)"),
        (333, r"\sum_ja_jv_j", r"\sum_ja_jv_1"),
        (351, r"pp^\top", r"p^\top p"),
        (21, r"也简写为 $x\in\mathbb{R}^d$", r"也简写为 $x\in\mathbb{R}^V$"),
        (99, r"$V\times d$", r"$V+d$"),
        (123, r"$W\in\mathbb{R}^{d\times m}$", r"$W\in\mathbb{R}^{m\times d}$"),
        (125, r"$n\times m$", r"$n\times d$"),
        (131, r"$X\in\mathbb{R}^{T\times d}$", r"$X\in\mathbb{R}^{d\times T}$"),
        (139, r"$z\in\mathbb{R}^V$", r"$z\in\mathbb{R}^d$"),
        (159, r"$m=\max_jz_j$", r"$m=\min_jz_j$"),
        (238, r"$E\in\mathbb{R}^{V\times d}$", r"$E\in\mathbb{R}^{d\times V}$"),
        (348, r"参数量 $V\times d$", r"参数量 $d\times d$"),
        (352, r"损失为 $\ln V$", r"损失为 $\ln (V-1)$"),
    ],
}


def _apply(notes: Path) -> None:
    for name, edits in EDITS.items():
        path = notes / name
        lines = path.read_text(encoding="utf-8").split("\n")
        for line, old, new in edits:
            if old not in lines[line - 1]:
                raise SystemExit(f"{name}:{line}: {old!r} is not on that line (the note moved)")
            lines[line - 1] = lines[line - 1].replace(old, new, 1)
        path.write_text("\n".join(lines), encoding="utf-8")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes"
        shutil.copytree(ROOT / "notes", notes)
        _apply(notes)
        report = Path(tmp) / "report.json"
        subprocess.run([sys.executable, "-m", "verifiers", "check", "--no-cache", "-j", "2",
                        "--notes", str(notes), "--json", str(report)], cwd=ROOT,
                       capture_output=True, check=False)
        data = json.loads(report.read_text(encoding="utf-8"))
    failing: set[tuple[str, int]] = set()
    for claim in data["claims"]:
        for value in claim["values"]:
            start = value.get("start")
            if value["status"] in ("discrepancy", "unparsed", "error") and start:
                failing.add((claim["note"], start["line"] if isinstance(start, dict) else start[0]))
    edited = {(name, line) for name, edits in EDITS.items() for line, _, _ in edits}
    caught = edited & failing
    for name, line in sorted(edited - caught):
        print(f"missed: {name}:{line}")
    for name, line in sorted(failing - edited):
        print(f"a verdict at an unedited line: {name}:{line}")
    print(f"{len(caught)} of {len(edited)} formula edits have a real verdict at the edited line; "
          f"{len(failing - edited)} elsewhere")
    return 0 if caught == edited and not failing - edited else 1


if __name__ == "__main__":
    sys.exit(main())
