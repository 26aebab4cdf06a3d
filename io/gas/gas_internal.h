/* gas_internal.h: the SSD tier of the global memory store (gas_ssd.c), shared inside io/gas/ only:
 * the owner's page file, used by the store (gas_store.c, gas_owner.c) and by the "gas" checkpoint
 * backend's restart (io_gas.c). */
#ifndef CC_GAS_INTERNAL_H
#define CC_GAS_INTERNAL_H

#include "cc_gas.h"
#include "io_internal.h"

/* A random-access page file: O_DIRECT + io_uring with a few registered bounce buffers (sized to
 * fit RLIMIT_MEMLOCK), the uring backend's fallback chain when fallback is allowed. Offsets are
 * multiples of 4096; a write of n bytes writes n rounded up to 4096 (zero padded). Not
 * thread-safe; no MPI inside. */
typedef struct gas_ssd gas_ssd;
CC_WUR cc_err gas_ssd_open(const char *path, cc_io_mode mode, int queue_depth, bool fallback,
                           gas_ssd **out);
CC_WUR cc_err gas_ssd_write(gas_ssd *s, int64_t offset, const void *data, size_t n);
CC_WUR cc_err gas_ssd_read(gas_ssd *s, int64_t offset, void *data, size_t n);
/* gas_ssd_read handing the data over as it arrives: ready(ctx, bytes) is called each time the
 * prefix [0, bytes) of data is complete, bytes growing, the last time with bytes == n, while the
 * rest is still read (the store sends a page's first parts during the read of the others). An
 * error from ready ends the read; requests still in flight are waited for by the next transfer or
 * gas_ssd_close. */
typedef cc_err (*gas_ssd_ready)(void *ctx, size_t bytes);
CC_WUR cc_err gas_ssd_read_stream(gas_ssd *s, int64_t offset, void *data, size_t n,
                                  gas_ssd_ready ready, void *ctx);
CC_WUR cc_err gas_ssd_sync(gas_ssd *s);
/* Closes the current file and opens path in the same mode, keeping the ring and its registered
 * buffers (a store kept across checkpoints moves to each checkpoint's page file). */
CC_WUR cc_err gas_ssd_reopen(gas_ssd *s, const char *path, bool fallback);
CC_WUR cc_err gas_ssd_close(gas_ssd **s);
void gas_ssd_describe(const gas_ssd *s, char *path_used, size_t n_path, char *detail,
                      size_t n_detail);

#endif
