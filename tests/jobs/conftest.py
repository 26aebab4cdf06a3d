"""Fixture reports for the analysis package's tests: real cubecg reports (tests/jobs/fixtures,
made by make_fixtures.py) copied into a temporary folder with the times, labels, MPI or precision
a test sets, so every expected value is known before the analysis runs."""
import copy
import json
import os

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return json.load(f)


def with_times(report, times):
    """A copy of report whose solves (solver, reduction) take the given seconds."""
    r = copy.deepcopy(report)
    for s in r["solves"]:
        key = (s["solver"], s["reduction"])
        if key in times:
            s["time_s"] = times[key]
            s["time_per_iter_s"] = times[key] / max(1, s["iterations"])
    return r


@pytest.fixture
def folder(tmp_path):
    """write(name, report) puts a report into a fresh folder; .path is the folder."""
    class Folder:
        path = str(tmp_path / "reports")

        def write(self, name, report):
            os.makedirs(self.path, exist_ok=True)
            with open(os.path.join(self.path, name), "w", encoding="utf-8") as f:
                json.dump(report, f)

    return Folder()


@pytest.fixture(autouse=True)
def builtin_variants():
    """Every test starts from the built-in variant list (load_reports replaces it in place)."""
    from cubecg_analysis import variants
    variants.use(variants.BUILTIN)
    yield
    variants.use(variants.BUILTIN)
