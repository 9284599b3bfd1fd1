"""notecheck verifiers."""
