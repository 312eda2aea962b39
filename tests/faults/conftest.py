"""Fixtures for the fault tests: the e2e fixtures (fake model, workspace, editors) are shared."""

from tests.e2e.conftest import editor, model, workspace

__all__ = ["editor", "model", "workspace"]
