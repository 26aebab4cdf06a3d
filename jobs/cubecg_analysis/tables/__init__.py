"""The text outputs: the printed table of every solve (console.py), the study's answer first
(headline.py) and tables.md (markdown.py)."""
