#!/bin/sh
# rank-rss.sh PROGRAM ARGS...: run one MPI rank of PROGRAM under /usr/bin/time, its peak RSS (KiB,
# GNU time's %M) written to $CUBECG_RSS_DIR/rss.<rank> (the rank from MPICH's / Intel MPI's PMI_RANK
# or Open MPI's OMPI_COMM_WORLD_RANK). bench/weak-scaling.py launches every rank through it.
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}
if [ -z "$rank" ] || [ -z "${CUBECG_RSS_DIR:-}" ]; then
  echo "rank-rss.sh: no rank (PMI_RANK, OMPI_COMM_WORLD_RANK) or no CUBECG_RSS_DIR" >&2
  exit 2
fi
exec /usr/bin/time -f %M -o "$CUBECG_RSS_DIR/rss.$rank" "$@"
