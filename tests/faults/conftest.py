"""Fixtures for the fault tests: the e2e fixtures (fake model, workspace, editors) are shared."""

from tests.e2e.conftest import editor, model, workspace

__all__ = ["editor", "model", "workspace"]

import os

from hypothesis import HealthCheck, settings

# "ci" (the default) is bounded and derandomized, so the suite stays quick and repeatable;
# HYPOTHESIS_PROFILE=thorough explores more when hunting bugs by hand.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=2000, deadline=None, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
