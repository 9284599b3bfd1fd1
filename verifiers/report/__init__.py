"""Outputs of a run: the JSON report (:mod:`.json`), the HTML report (:mod:`.html`) with its
pictures (:mod:`.pictures`, drawn by :mod:`.svg`), and GitHub annotations (:mod:`.github`)."""
