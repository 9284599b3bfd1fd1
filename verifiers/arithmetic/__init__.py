"""Arithmetic checks: how a printed value may honestly have been computed."""
