"""Safe YAML loading that remembers where every key and value came from.

Claims arrive in pull requests, so YAML is composed with PyYAML's SafeLoader
and turned into plain data by hand: only the standard scalar, sequence and
mapping tags are accepted, aliases are refused (no "billion laughs"), and
duplicate keys are errors. Every node keeps its 1-based line and column so
that validation messages can point at ``claims/x.yaml:12:5``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

MAX_NODES = 200_000
# libyaml's parser when PyYAML was built with it (same nodes and marks, ~10x faster).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STANDARD_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


class YamlError(Exception):
    """A YAML file that cannot become claims; carries the file position."""

    def __init__(self, message: str, line: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass
class Node:
    """A YAML value with its position; ``value`` is str/int/float/bool/None/list/dict."""

    value: Any
    line: int
    col: int
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)

    def plain(self) -> Any:
        """The value with all positions stripped (for expressions and messages)."""
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


def load(text: str) -> Node | None:
    """Parse one YAML document into located nodes; None for an empty document."""
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(f"invalid YAML: {problem}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}") from None
    if root is None:
        return None
    return _Builder().build(root)


class _Builder:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.constructor = yaml.SafeLoader("")

    def build(self, node: yaml.Node) -> Node:
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        if id(node) in self.seen:
            raise YamlError("YAML aliases (*name) are not allowed in claims", line, col)
        self.seen.add(id(node))
        if len(self.seen) > MAX_NODES:
            raise YamlError(f"too many YAML nodes (more than {MAX_NODES})", line, col)
        if node.tag not in _STANDARD_TAGS:
            raise YamlError(f"tag {node.tag!r} is not allowed in claims", line, col)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, line, col)
        if isinstance(node, yaml.SequenceNode):
            return Node([self.build(item) for item in node.value], line, col)
        value = self.constructor.construct_object(node, deep=True)
        return Node(value, line, col)

    def _mapping(self, node: yaml.MappingNode, line: int, col: int) -> Node:
        result: dict[str, Node] = {}
        keys: dict[str, tuple[int, int]] = {}
        for key_node, value_node in node.value:
            key = self.build(key_node)
            if isinstance(key.value, (dict, list)) or key.value is None:
                raise YamlError("mapping keys must be plain text", key.line, key.col)
            name = str(key.value)
            if name in result:
                first = keys[name][0]
                raise YamlError(
                    f"duplicate key {name!r} (first at line {first})", key.line, key.col
                )
            keys[name] = (key.line, key.col)
            result[name] = self.build(value_node)
        return Node(result, line, col, keys)
