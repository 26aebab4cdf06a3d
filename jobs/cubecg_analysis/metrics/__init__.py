"""The study's metrics from the tidy rows: scaling.py (speed-up, relative performance, Tables 4,
6 and 7, study.csv) and cost.py (checkpoint overhead, I/O rows)."""
