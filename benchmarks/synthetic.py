"""A synthetic corpus: notes and claims of the real shapes, generated (not copied), N times over.

Each generated section prints inputs, a sum, a product, a rounded exponential
and a softmax row, and its claims check them with ``check``/``uses`` chains
like the real claim files do: five claims per section, so ``factor`` x the
real claim count needs ``factor * CLAIMS / 5`` sections, spread over notes of
at most 500 sections each.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

REAL_CLAIMS = 447  # claims in claims/ when the generator was written
PER_SECTION = 5
SECTIONS_PER_NOTE = 500


def _section(k: int, rng: random.Random, prefix: str) -> tuple[str, str]:
    a, b = round(rng.uniform(0.1, 2), 2), round(rng.uniform(0.1, 2), 2)
    s = [round(rng.uniform(-1, 1), 1) for _ in range(3)]
    exps = [math.exp(x) for x in s]
    total = sum(exps)
    probs = ", ".join(f"{e / total:.3f}" for e in exps)
    label = f"{k // 9 + 1}.{k % 9 + 1}"
    chapter = k // 9 + 1
    text = (f"{label} 例子{k}\n输入 a = {a:.2f}, b = {b:.2f}\n"
            f"和：a + b = {a + b:.2f}\n积：a × b = {a * b:.4f}\n"
            f"指数：e^{{a}} ≈ {math.exp(a):.3f}\n"
            f"分数 s = [{', '.join(f'{x:.1f}' for x in s)}]，概率 p = [{probs}]\n")
    cid = f"{prefix}s{k}"
    claims = f"""  - id: {cid}-in
    kind: given
    section: "{label}"
    text: 输入 a = ⟨a⟩, b = ⟨b⟩
  - id: {cid}-sum
    section: "{label}"
    text: 和：a + b = ⟨s⟩
    uses: {{x: {cid}-in.a, y: {cid}-in.b}}
    check: {{s: x + y}}
  - id: {cid}-prod
    section: "{label}"
    text: 积：a × b = ⟨p⟩
    uses: {{x: {cid}-in.a, y: {cid}-in.b}}
    check: {{p: x * y}}
  - id: {cid}-exp
    section: "{label}"
    text: 指数：e^{{a}} ≈ ⟨e⟩
    uses: {{x: {cid}-in.a}}
    check: {{e: exp(x)}}
  - id: {cid}-softmax
    section: "{label}"
    text: 分数 s = ⟨s⟩，概率 p = ⟨p⟩
    check: {{p: softmax(s)}}
"""
    return (f"第 {chapter} 章：合成\n" if k % 9 == 0 else "") + text, claims


def write_corpus(root: Path, factor: int, seed: int = 0) -> int:
    """Write notes/ and claims/ under ``root``; return the number of claims."""
    rng = random.Random(seed)
    sections = max(1, factor * REAL_CLAIMS // PER_SECTION)
    (root / "notes").mkdir(parents=True, exist_ok=True)
    for start in range(0, sections, SECTIONS_PER_NOTE):
        name = f"synthetic-{start // SECTIONS_PER_NOTE:03d}"
        texts, claims = [], []
        for k in range(start, min(sections, start + SECTIONS_PER_NOTE)):
            text, claim = _section(k - start, rng, f"n{start // SECTIONS_PER_NOTE}")
            texts.append(text)
            claims.append(claim)
        (root / "notes" / f"{name}.txt").write_text("".join(texts), encoding="utf-8")
        folder = root / "claims" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "claims.yaml").write_text(f"note: {name}.txt\nclaims:\n" + "".join(claims),
                                            encoding="utf-8")
    return sections * PER_SECTION


def write_large_note(root: Path, lines: int, seed: int = 0) -> tuple[int, int]:
    """One note of at least ``lines`` lines (the sections above, one after another) and its
    claims under ``root``; return (lines, claims). Deterministic for a given ``seed``."""
    rng = random.Random(seed)
    texts, claims, count, k = [], [], 0, 0
    while count < lines:
        text, claim = _section(k, rng, "big")
        texts.append(text)
        claims.append(claim)
        count += text.count("\n")
        k += 1
    (root / "notes").mkdir(parents=True, exist_ok=True)
    (root / "notes" / "large.txt").write_text("".join(texts), encoding="utf-8")
    folder = root / "claims" / "large"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "claims.yaml").write_text("note: large.txt\nclaims:\n" + "".join(claims),
                                        encoding="utf-8")
    return count, k * PER_SECTION
