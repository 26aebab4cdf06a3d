"""The published values cubecg is compared with, read from data/published.json (each entry names
the table or figure of the study it comes from). Nothing published is written in Python: the
model, the figures and tables.md take every number from here."""
import json
import os

# data/ of the package (the folder above readers/)
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                    "published.json")


def _load():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


RAW = _load()
# where each group of values comes from ("Table 7: ...", "vGASNet: ..."), for labels and CSVs
SOURCE = {k: v["source"] for k, v in RAW.items() if isinstance(v, dict) and "source" in v}
MACHINE = RAW["oakforest_pacs"]
# Table 4: cores -> (CG loop [s], MPI_Allreduce [s], Allreduce share of the loop)
TABLE4 = {r["cores"]: (r["cg_loop_s"], r["allreduce_s"], r["allreduce_share"])
          for r in RAW["table4"]["rows"]}
# Table 7: solver -> {cores: T(Alg.x-AR) / T(Alg.x-IAR)}, progress thread on in both runs
TABLE7_SOLVERS = ("pipecg", "gropp")
TABLE7 = {s: {r["cores"]: r[s] for r in RAW["table7"]["rows"]} for s in TABLE7_SOLVERS}
TABLE7_CORES = [r["cores"] for r in RAW["table7"]["rows"]]
# Table 6: (mapping, placement, logical CPUs)
TABLE6 = [(r["mapping"], r["placement"], r["cpus"]) for r in RAW["table6"]["rows"]]
TABLE6_SUMMARY = RAW["table6"]["summary"]
# checkpoint I/O on SX-Aurora: (system, devices, ranks, mode, op, GB/s, note)
IO = [(r["system"], r["devices"], r["ranks"], r["mode"], r["op"], r["gb_s"], r["note"])
      for r in RAW["io_sx_aurora"]["rows"]]
IO_MAPPING = [(r["mapping"], r["gb_s"]) for r in RAW["io_mapping"]["rows"]]
VGASNET = RAW["vgasnet"]
# Figs. 12/18: the speed-up Alg.3/4 reach on Reedbush-U at the largest core count
SPEEDUP = RAW["speedup_reedbush"]
