"""The figures, each with the CSV of what it draws: the writer (output.py), the scaling and cost
figures of cubecg-analyze (scaling.py, cost.py), the I/O study (io_study.py, cubecg-analyze-io),
the global store (store.py, cubecg-analyze-store) and a trace's timeline (timeline.py,
cubecg-timeline)."""
