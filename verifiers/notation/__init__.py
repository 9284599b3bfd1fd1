"""Notation a note declares or implies: the domains of its named quantities (domains.yaml)."""
