"""The latency-bandwidth model of one CG iteration and of the published Table 7: the model from
Table 4 (preset.py), on local reports (local.py), h measured by a probe (overlap.py), model.md
(report.py) and cubecg-model (cli.py)."""
