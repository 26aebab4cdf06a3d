# The traffic model (solvers/traffic.c) equals hand counts (test_traffic.c). Label: roofline.
cc_add_unit(test_traffic solvers/test_traffic.c)
cc_add_mpi_test(NAME roofline_traffic_model RANKS 1 2 4 LABELS roofline
                COMMAND $<TARGET_FILE:test_traffic>)
