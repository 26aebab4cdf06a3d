"""What reads data: cubecg's reports (reports.py; gasbench reports: gasbench.py), the tidy rows and
series of the run reports (series.py) and the published values (published.py)."""
