"""Safe YAML loading that remembers where every key and value came from.

Claims arrive in pull requests, so YAML is read as PyYAML's *event stream*
(SafeLoader's scanner and parser, libyaml's when available) and turned into
plain data by hand, without recursion: only the standard scalar, sequence and
mapping tags are accepted, aliases are refused (no "billion laughs"), duplicate
keys are errors, and nesting deeper than :data:`MAX_DEPTH` or more than
:data:`MAX_NODES` values stop the read at once (PyYAML's own composer recurses,
and libyaml slows down quadratically with depth). Every node keeps its 1-based
line and column so that validation messages can point at ``claims/x.yaml:12:5``.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field
from typing import Any

import yaml

MAX_NODES = 200_000
MAX_DEPTH = 100  # a claim file needs about 8 levels
# libyaml's parser when PyYAML was built with it (same events and marks, ~10x faster).
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
    """A YAML value with its position; ``value`` is str/int/float/bool/None/list/dict.

    ``raw`` is a scalar's source text (``0.1234567890123456789`` stays exact there
    even though ``value`` is a float).
    """

    value: Any
    line: int
    col: int
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    raw: str | None = None

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
        return _Builder(text).build()
    except yaml.MarkedYAMLError as exc:
        line, col = _place(text, exc.problem_mark or exc.context_mark)
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(f"invalid YAML: {problem}", line, col) from None
    except yaml.reader.ReaderError as exc:  # a control character, e.g. NUL
        line, col = _position(text, exc.position)
        raise YamlError(f"invalid YAML: unacceptable character #x{exc.character:04x}: control "
                        "characters are not allowed", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}") from None


def _position(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of a reader position (libyaml counts UTF-8 bytes)."""
    if _LOADER is not yaml.SafeLoader:
        position = len(text.encode("utf-8")[:position].decode("utf-8", "ignore"))
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


class _Frame:
    """An open sequence or mapping; a mapping remembers the key awaiting its value."""

    __slots__ = ("node", "key")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.key: Node | None = None


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.count = 0
        self.resolver = yaml.SafeLoader("")  # implicit tags and scalar construction

    def build(self) -> Node | None:
        stack: list[_Frame] = []
        root: Node | None = None
        documents = 0
        for event in yaml.parse(self.text, Loader=_LOADER):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    line, col = _place(self.text, event.start_mark)
                    raise YamlError("invalid YAML: expected a single document, but found "
                                    "another document", line, col)
                continue
            if isinstance(event, yaml.AliasEvent):
                line, col = _place(self.text, event.start_mark)
                raise YamlError("YAML aliases (*name) are not allowed in claims", line, col)
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                done = stack.pop().node
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                node = self.node(event, stack)
                node.value = {} if isinstance(event, yaml.MappingStartEvent) else []
                stack.append(_Frame(node))
                if len(stack) > MAX_DEPTH:
                    raise YamlError(f"YAML nested too deeply (more than {MAX_DEPTH} levels)",
                                    node.line, node.col)
                continue
            elif isinstance(event, yaml.ScalarEvent):
                done = self.node(event, stack)
            else:
                continue
            if not stack:
                root = done
            else:
                self.attach(stack[-1], done)
        return root

    def node(self, event: Any, stack: list[_Frame]) -> Node:
        line, col = _place(self.text, event.start_mark)
        self.count += 1
        if self.count > MAX_NODES:
            raise YamlError(f"too many YAML nodes (more than {MAX_NODES})", line, col)
        scalar = isinstance(event, yaml.ScalarEvent)
        kind = (yaml.ScalarNode if scalar else yaml.MappingNode
                if isinstance(event, yaml.MappingStartEvent) else yaml.SequenceNode)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolver.resolve(kind, event.value if scalar else None, event.implicit)
        if tag not in _STANDARD_TAGS:
            raise YamlError(f"tag {tag!r} is not allowed in claims", line, col)
        top = stack[-1] if stack else None
        if top is not None and isinstance(top.node.value, dict) and top.key is None \
                and not scalar:
            raise YamlError("mapping keys must be plain text", line, col)
        if not scalar:
            return Node(None, line, col)
        try:
            value = self.resolver.construct_object(
                yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                event.style), deep=True)
        except (ValueError, ArithmeticError, yaml.YAMLError) as exc:
            detail = str(exc).split(";")[0]  # not Python's advice on sys.set_int_max_str_digits
            raise YamlError(f"cannot read {tag.rsplit(':', 1)[-1]} value: {detail}", line,
                            col) from None
        if event.style in ("'", '"'):  # point at the text, not its opening quote, so that
            col += 1  # a column inside an expression lands on the right character
        return Node(value, line, col, raw=event.value)

    def attach(self, frame: _Frame, child: Node) -> None:
        parent = frame.node
        if isinstance(parent.value, list):
            parent.value.append(child)
            return
        if frame.key is None:  # a key
            if child.value is None:
                raise YamlError("mapping keys must be plain text", child.line, child.col)
            name = str(child.value)
            if name in parent.value:
                first = parent.keys[name][0]
                raise YamlError(f"duplicate key {name!r} (first at line {first})", child.line,
                                child.col)
            frame.key = child
            return
        name = str(frame.key.value)
        parent.keys[name] = (frame.key.line, frame.key.col)
        parent.value[name] = child
        frame.key = None


_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")  # line breaks to YAML, not to editors


def _place(text: str, mark: Any) -> tuple[int, int]:
    """1-based line and column of a mark, lines counted as editors count them."""
    if mark is None:
        return 1, 1
    if not _has_yaml_only_breaks(text):
        return mark.line + 1, mark.column + 1
    return _position_of_index(text, mark.index)


@functools.lru_cache(maxsize=4)
def _has_yaml_only_breaks(text: str) -> bool:  # once per file, not once per node
    return any(ch in text for ch in _YAML_ONLY_BREAKS)


def _position_of_index(text: str, index: int) -> tuple[int, int]:
    starts = _line_starts(text)
    line = bisect.bisect_right(starts, index)
    return line, index - starts[line - 1] + 1


@functools.lru_cache(maxsize=4)
def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
