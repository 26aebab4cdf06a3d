# Per-rank memory at fixed local size (weak scaling, bench/weak-scaling.py): cubecg at 2, 8 and 16
# ranks with 16^3 nodes per rank; each rank's peak RSS from /usr/bin/time -f %M (bytes, no times).
# Fails when the largest rank holds more than 1.25 x the median rank's RSS at any P (one rank
# holding a global structure), or when the largest rank's RSS at P = 16 is more than 1.15 x that at
# P = 2 (a per-rank structure that grows with P; at P = 16 the O(P) arrays of the set-up and
# MPICH's shared-memory queues add about 3 MB to 36 MB: docs/scaling.md). RUN_SERIAL: 16 ranks
# take every core, nothing else may run beside them. sanitize-skip: ASan's shadow memory and
# quarantine are not the program's memory, and the bounds are for the release build.
foreach(partition box metis)
  add_test(NAME scale_rss_${partition}
           COMMAND python3 ${PROJECT_SOURCE_DIR}/bench/weak-scaling.py --ranks 2,8,16 --local 16
                   --partitions ${partition} --backends none --no-figure --check-rss 1.25,1.15
                   --build ${PROJECT_BINARY_DIR} --out ${CMAKE_CURRENT_BINARY_DIR}/scale_rss_${partition})
  set_tests_properties(scale_rss_${partition} PROPERTIES RUN_SERIAL TRUE TIMEOUT 600
                       REQUIRED_FILES /usr/bin/time LABELS "scale;sanitize-skip")
endforeach()
