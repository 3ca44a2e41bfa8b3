"""Shared fixtures: seeded generators (fixed seeds plus one fresh seed per run, printed on failure)."""

import os
import random

import numpy as np
import pytest

# One fresh seed per run (WARPDEX_PYTHON_SEED repeats a run); the fixed seeds run every time.
FRESH_SEED = int(os.environ.get("WARPDEX_PYTHON_SEED", random.SystemRandom().randrange(2**31)))


def pytest_report_header(config):
    return f"warpdex python tests: fresh seed {FRESH_SEED} (repeat with WARPDEX_PYTHON_SEED={FRESH_SEED})"


@pytest.fixture(params=[1, 2026, FRESH_SEED], ids=lambda seed: f"seed={seed}")
def rng(request):
    return np.random.default_rng(request.param)
