"""Planted-error corpus (YAML files here) and its survey: see README.md."""
