"""An instance never proves a chain by leaving a definition's numbered names unread (issue 13).

With ``L = f (z_{1}, z_{2}, z_{3})`` and the family ``z_{i} = g (i, x_{1}, x_{2}, x_{3})``, the
instance kept ``z_1`` a free symbol (only ``z[i]`` entries were substituted) and left the
index ``j`` of ``∂L/∂x_j`` uncased (it occurs only as the derivative's variable), so
``∂L/∂x_j`` was the derivative of an independent symbol, 0, and a broken copy of the chain
rule (``= \\sum_{i} 0``, the Jacobian factor dropped) was ``proved``. Now ``z_1`` is the
family's entry 1 and ``j`` takes every value: the broken copies are not proved.
"""

from __future__ import annotations

import pytest

from tests.test_engine import check, project

NOTE = "§0\n若 $L$ 依赖 $z_1,\\dots,z_m$，而每个 $z_i$ 又依赖 $x_j$，则\n\n$$RULE$$\n"

CLAIMS = r"""note: n.txt
claims:
  - id: chain
    kind: symbolic
    text: |
      若 $L$ 依赖 ⟪DZ⟫，而每个 ⟪DX⟫，则
      $$⟪F⟫$$
    define: {L: DZ, z_i: DX}
    functions: [f, g]
    assume: {integer: [i, j]}
    restate:
      DZ: {as: 'L = f (z_{1}, z_{2}, z_{3})', reason: 'L depends on z_1 … z_m (words), m = 3'}
      DX: {as: 'z_{i} = g (i, x_{1}, x_{2}, x_{3})', reason: 'each z_i depends on x (words)'}
"""


@pytest.mark.parametrize("rule", [
    r"\frac{\partial L}{\partial x_j}=\sum_{i}0",
    r"\frac{\partial L}{\partial x_j}=\sum_{i}\frac{\partial L}{\partial z_i}",
    r"\frac{\partial L}{\partial x_j}=0",
])
def test_a_broken_chain_rule_is_not_proved(tmp_path, capsys, rule):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE.replace("RULE", rule)), capsys)
    chain = data["claims"][0]
    assert chain["status"] != "verified", chain["message"]
    assert "proved" not in chain["values"][0]["message"].split("[")[0], chain["message"]
