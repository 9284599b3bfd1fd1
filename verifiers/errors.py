"""The error type our own parsers raise: a message and the column where it went wrong."""

from __future__ import annotations


class ColumnError(Exception):
    """Malformed input, notation outside a grammar, or a limit hit, at a 1-based column."""

    def __init__(self, message: str, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.col = col

    def __str__(self) -> str:
        return self.message if self.col is None else f"{self.message} (column {self.col})"


class InputError(Exception):
    """Unreadable input (a missing folder, a note that is not UTF-8): exit code 2."""
