"""Small helpers every module of the analysis shares: numbers from JSON, the breakdown parts of a
solve, colours, and the formatting of values and Markdown tables."""
import math

PROGRESS_ORDER = ("off", "poll", "on")
PROGRESS_COLOR = {"off": "tab:blue", "poll": "tab:orange", "on": "tab:green"}
# halo_wait / precond_halo_wait: blocked for the halo messages (older reports count the wait
# inside halo / precond_halo and lack these keys)
BREAKDOWN = ("spmv", "precond", "precond_halo", "precond_halo_wait", "halo", "halo_wait",
             "reduction", "axpy", "dot", "other")
BREAKDOWN_LABEL = {"spmv": "SpMV", "precond": "preconditioner", "precond_halo": "ASDD halo",
                   "precond_halo_wait": "ASDD halo wait", "halo": "SpMV halo",
                   "halo_wait": "SpMV halo wait", "reduction": "reduction wait", "axpy": "AXPY",
                   "dot": "dot (local)", "checkpoint": "checkpoint stall", "other": "other"}
BACKEND_COLOR = {"posix": "tab:blue", "uring": "tab:orange", "offload": "tab:green",
                 "hdf5": "tab:purple"}


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def num(v):
    """A JSON number as float; nan for null or anything else."""
    return float(v) if is_num(v) else math.nan


def distinct(data, fields):
    """The distinct tuples of the fields of data's dicts, in first-seen order."""
    return list(dict.fromkeys(tuple(d[f] for f in fields) for d in data))


def fmt_lat(lat):
    return "0" if math.isnan(lat) or lat == 0 else f"{lat:g}"


def human_bytes(b):
    if not b:
        return "-"
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if b >= f:
            return f"{b // f}{unit}" if b % f == 0 else f"{b / f:.1f}{unit}"
    return str(b)


def md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def fmt_range(med, lo, hi, n, fmt="{:.2f}"):
    """median, with [min-max] when there are repeats."""
    if math.isnan(med):
        return ""
    return fmt.format(med) + (f" [{fmt.format(lo)}-{fmt.format(hi)}]" if n > 1 else "")


def fmt_noisy(med, lo, hi, n, noise, fmt="{:.2f}"):
    """A compared value (median [min-max]) with its noise verdict: "(within noise)" when the
    repeats' ranges of the two sides overlap, "(single run)" when a side ran once."""
    text = fmt_range(med, lo, hi, n, fmt)
    return text + (f" ({noise})" if text and noise else "")
