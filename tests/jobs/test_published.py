"""The published values live in data/published.json, each group naming its source, and nowhere in
the package's code."""
import ast
import json
import os

import cubecg_analysis
from cubecg_analysis.readers import published

PACKAGE = os.path.dirname(cubecg_analysis.__file__)


def leaves(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from leaves(v)
    else:
        yield obj


def test_every_group_names_its_source():
    with open(published.DATA, encoding="utf-8") as f:
        raw = json.load(f)
    groups = {k: v for k, v in raw.items() if isinstance(v, dict)}
    assert set(groups) >= {"table4", "table6", "table7", "io_sx_aurora", "io_mapping", "vgasnet",
                           "speedup_reedbush"}
    for name, group in groups.items():
        assert any(w in group["source"] for w in ("Table", "Fig", "I/O", "vGASNet", "Oakforest")), name


def test_no_published_number_is_written_in_python():
    with open(published.DATA, encoding="utf-8") as f:
        raw = json.load(f)
    # the distinctive published numbers: two decimals or more (15.34, 1.03), or bandwidths (3.56e9);
    # one-decimal ones (1.2, 12.5) a plot margin or a default may share
    values = {v for v in leaves(raw) if isinstance(v, float) and (round(v, 1) != v or v >= 1e5)}
    assert len(values) > 25
    found = []
    for root, _, names in sorted(os.walk(PACKAGE)):  # the package and its subpackages
        for name in sorted(n for n in names if n.endswith(".py")):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            found += [(os.path.relpath(os.path.join(root, name), PACKAGE), n.value)
                      for n in ast.walk(tree)
                      if isinstance(n, ast.Constant) and isinstance(n.value, float) and n.value in values]
    assert found == []
