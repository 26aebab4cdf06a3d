/* cc_gas.h: the vGASNet-style global memory store of cubecg: one global segment of
 * fixed-size pages over MPI RMA, a DRAM page cache per rank in an MPI window, an SSD tier per owner
 * (O_DIRECT + io_uring, registered buffers), a per-owner page directory and cooperative caching.
 * After vGASNet (SSD-extended PGAS global memory with DRAM caching over GASNet); see
 * docs/global-store.md. Used by the "gas" checkpoint backend (io_gas.c) and
 * cubecg-gasbench.
 *
 * Contract:
 * - Geometry. Every rank is the *home* of pages_per_rank pages: global page g in
 *   [0, size * pages_per_rank) belongs to home h = g / pages_per_rank. Its *owner* is the home's
 *   partner: a rank on another node whenever there are two or more nodes (nodes =
 *   MPI_COMM_TYPE_SHARED); on one node the next rank (so a process, not a node, can be lost); with
 *   one rank, itself. partner(r) = the rank with local index (local index of r) mod (size of that
 *   node) on node (node of r + 1) mod n_nodes, nodes numbered by their lowest rank. A transfer
 *   starts at a page boundary (byte offset g * page_bytes) and covers whole pages but the last.
 * - DRAM. Each rank exposes dram_bytes / page_bytes page slots in one MPI_Win_allocate window
 *   (passive target); when every rank is on one node, an MPI_Win_allocate_shared window instead,
 *   whose slots all ranks read and write by load/store (GASNet's PSHM), copying and computing the
 *   CRC32C in one pass. A slot holds an owned page or a copy of another owner's page (cooperative
 *   cache). Past the budget the least recently used unpinned slot is evicted: an owned page is
 *   written to the owner's SSD file (if dirty), a copy is dropped and its owner told.
 * - SSD. Owner o keeps its pages in ssd_dir/gas.<o>.pages at fixed offsets (owned index x
 *   page_bytes), written and read through io_uring with O_DIRECT and registered buffers
 * (backends/gas/gas_ssd.c), with the uring backend's explicit fallback rules: if O_DIRECT is refused,
 * io_uring is blocked or buffer registration fails, creation fails naming the reason, unless
 * params.fallback allows the chain fixed+direct -> uring-direct -> pwrite-direct -> buffered (the
 * path is reported).
 * - Directory. The owner keeps, per owned page: DRAM slot (or none), whether the SSD copy is
 *   current, length, CRC32C, and up to GAS_MAX_SHARERS (rank, slot) pairs holding a clean copy.
 * - Operations. put / get, blocking and non-blocking (cc_gas_put_nb / cc_gas_get_nb return a
 *   handle; cc_gas_wait completes it, as GASNet's nb; several handles may be outstanding). A put
 *   asks the owner for a slot (a small request message), moves the page, then tells the owner it
 *   is done (the owner records length + CRC32C and invalidates cached copies). A get asks the
 *   owner, which answers, in this order: its DRAM slot (dram-hit), a rank listed as holding a
 *   copy (coop-hit, when params.coop), else it reads the page from its SSD into a slot first
 *   (ssd-miss, O_DIRECT straight into the slot). How the page moves (cc_gas_data_path): on one
 *   node by load/store through the shared window, copy and CRC32C in one pass; across nodes as
 *   messages into receives posted in advance, because MPICH's ch4:ucx emulates RMA with active
 *   messages when it has no zero-copy transport (in containers that block process_vm_readv), and
 *   then every fragment of an MPI_Get waits for the target's progress (measured: 10x slower than
 *   MPI_Send at 4 MB). A page served goes as soon as the owner has handled the request, before
 *   its answer, in 4 parts (one tag, matched in order) when pages are 2 MiB or more; for an SSD
 *   miss the owner reads the page then and sends each part as soon as the read has passed it.
 *   For a put the owner posts the receive into the slot before answering, and the writer sends
 *   the page and computes its CRC32C while the owner's core copies it (ch4:ucx's rendezvous: the
 *   receiver copies; MPI-3 lets a pending send's buffer be read). A cooperative copy is read with
 *   MPI_Get + MPI_Win_flush (one MPI_Win_lock_all epoch for the store's lifetime). Pages handed
 *   out are pinned until the requester's done message and, across nodes, until the owner's sends
 *   of them have completed, so they are never evicted or overwritten under a transfer.
 * - Who services requests: the owner, from *polling* inside the store's own calls (every
 *   cc_gas_* call that waits, cc_gas_progress, cc_gas_barrier) -- GASNet's active-message handler
 *   run from progress calls, not a service thread. Why: cubecg's driver asks for
 *   MPI_THREAD_FUNNELED (MULTIPLE only with MPICH's async progress), and MULTIPLE puts a lock
 *   around every MPI call of the solver whose reduction latency the study measures; a service
 *   thread would spin on a core the ranks compute on (on this 2-core machine the MPICH progress
 *   thread made every solve ~2.2x slower); and the store's users (a checkpoint, the benchmark)
 *   are collective phases in which every rank is inside the store anyway. The price: an owner
 *   that computes without calling the store serves nobody (a get from it waits for its next call).
 * - Integrity. Every page carries a CRC32C computed by the writer, recorded in the directory; it
 *   guards the page at rest, in DRAM and on the SSD (the wire is MPI's). A get checks it and
 *   refuses a corrupt page with an error naming the page and its owner. Who checks: on one node,
 *   and for own pages, the requester in its copy pass; across nodes the owner, over its slot
 *   while the requester copies the page out (an SSD miss: over each part as it is read), its
 *   answer carrying the CRC32C it computed, which the requester compares with the directory's
 *   once the page has landed -- the check overlaps the copy instead of following it. A
 *   cooperative copy (MPI_Get) is checked by the requester; one that fails is dropped and the page
 *   fetched from its owner instead. The drain verifies each page before writing it to the SSD.
 * - Collective calls (marked) must be made by every rank of the communicator. Errors one rank
 *   sees inside collective calls are agreed on.
 * - Test seams (cc_io_set_inject, cc_io.h): "odirect-einval", "uring-eperm", "register-enomem"
 *   as for the uring backend; "gas-corrupt" flips a byte of the owner's DRAM copy of every page it serves
 *   (after reading it from the SSD on a miss; a page served twice is flipped back).
 */
#ifndef CC_GAS_H
#define CC_GAS_H

#include "cc_common.h"
#include "cc_io.h"

#include <stdbool.h>

#define CC_GAS_MIN_PAGE 4096
#define GAS_MAX_SHARERS 4

typedef struct cc_gas_params {
  size_t page_bytes;           /* power of two >= 4096 (default 4 MiB) */
  size_t dram_bytes;           /* DRAM cache budget per rank, >= one page (default 64 MiB) */
  char ssd_dir[CC_IO_DIR_MAX]; /* directory of the owners' page files (default ".") */
  int64_t ssd_bytes; /* SSD capacity per owner; 0 = the free space of ssd_dir's file system */
  bool coop;         /* cooperative caching: requesters keep copies, owners redirect to them */
  bool fallback;     /* uring fallback chain allowed */
  bool durable;      /* fsync the page files at cc_gas_drain */
  bool keep_files;   /* cc_gas_destroy leaves the page files (checkpoints) */
  int queue_depth;   /* SSD requests in flight (default 4) */
} cc_gas_params;

void cc_gas_params_default(cc_gas_params *p);
/* Bad page size (not a power of two or < 4 KiB) or DRAM budget below one page: one-line error. */
CC_WUR cc_err cc_gas_params_check(const cc_gas_params *p);
/* Collective. Refuses (CC_ERR_ARG, one line naming the numbers) when some owner would hold more
 * than dram_bytes + SSD capacity for homes of home_bytes each (before any allocation). */
CC_WUR cc_err cc_gas_check_capacity(MPI_Comm comm, const cc_gas_params *p, int64_t home_bytes);

typedef struct cc_gas cc_gas;

typedef struct {
  int64_t puts, gets;
  int64_t dram_hits, ssd_misses, coop_hits, local_hits; /* how this rank's gets were served */
  int64_t evictions, ssd_bytes_written, ssd_bytes_read; /* as an owner */
  int64_t busy_retries, coop_rejected;
  char ssd_path_used[32]; /* "uring-fixed-direct" ... */
  char ssd_detail[128];
} cc_gas_stats;

/* Collective: dup of comm, node detection, window, SSD file of this owner. */
CC_WUR cc_err cc_gas_create(MPI_Comm comm, const cc_gas_params *p, int64_t pages_per_rank,
                            cc_gas **gas);
/* Collective: frees the window (after a barrier), closes (and unless keep_files removes) the file.
 */
/* Collective: a new global segment in a store created with the same geometry (page, DRAM budget,
 * coop, fallback, queue depth and pages_per_rank): every page is forgotten (DRAM slots emptied;
 * the page file closed, and removed unless keep_files: drain first to keep it complete), the page
 * files go to p->ssd_dir, durable and keep_files are taken from p; the window, the node map and the
 * SSD ring with its registered buffers are kept (a checkpointer's store lives across its
 * checkpoints: creating one costs 0.02-0.2 s on a loaded machine). If the geometry differs nothing
 * happens and *reused is false: destroy and create instead. */
/* Not collective: frees what is this rank's alone (memory, the page file: closed and kept), for
 * an error path where the other ranks may not call cc_gas_destroy; the window and the duplicated
 * communicator are left to MPI_Finalize. */
void cc_gas_abandon(cc_gas **gas);
CC_WUR cc_err cc_gas_reuse(cc_gas *gas, const cc_gas_params *p, int64_t pages_per_rank,
                           bool *reused);
CC_WUR cc_err cc_gas_destroy(cc_gas **gas);

int cc_gas_owner(const cc_gas *gas, int64_t page);
int cc_gas_partner(const cc_gas *gas, int rank); /* owner of rank's home pages */
int cc_gas_node(const cc_gas *gas, int rank);    /* node index of a rank */
int cc_gas_n_nodes(const cc_gas *gas);
/* How transfers move bytes: "shared-memory" (one node: load/store into a shared window, copy and
 * CRC32C in one pass) or "messages" (a page as sends into receives posted in advance, the CRC32C
 * computed meanwhile by the sender's core; cooperative copies by MPI_Get + MPI_Win_flush). */
const char *cc_gas_data_path(const cc_gas *gas);
size_t cc_gas_page_bytes(const cc_gas *gas);
int64_t cc_gas_pages_per_rank(const cc_gas *gas);
/* Byte offset in the owner's page file of page (as listed in checkpoint receipts). */
int64_t cc_gas_ssd_offset(const cc_gas *gas, int64_t page);
/* The owner's page file name (no directory): "gas.<owner>.pages". */
void cc_gas_file_name(int owner, char *name, size_t n);

typedef struct cc_gas_handle cc_gas_handle;
/* offset is a multiple of page_bytes; n > 0; the transfer stays inside the segment. */
CC_WUR cc_err cc_gas_put_nb(cc_gas *gas, int64_t offset, const void *buf, size_t n,
                            cc_gas_handle **h);
CC_WUR cc_err cc_gas_get_nb(cc_gas *gas, int64_t offset, void *buf, size_t n, cc_gas_handle **h);
/* Completes and frees *h (services requests meanwhile); *h = NULL afterwards, also on error. */
CC_WUR cc_err cc_gas_wait(cc_gas *gas, cc_gas_handle **h);
CC_WUR cc_err cc_gas_put(cc_gas *gas, int64_t offset, const void *buf, size_t n);
CC_WUR cc_err cc_gas_get(cc_gas *gas, int64_t offset, void *buf, size_t n);
/* CRC32C the directory records for page (owner only; false if not owned or never written). */
bool cc_gas_page_crc(const cc_gas *gas, int64_t page, uint32_t *crc, size_t *len);

/* Services pending requests (non-blocking). */
CC_WUR cc_err cc_gas_progress(cc_gas *gas);
/* Collective: a barrier that keeps servicing requests until every rank has arrived. */
CC_WUR cc_err cc_gas_barrier(cc_gas *gas);
/* Collective: every owner writes its dirty DRAM pages (verified) to its SSD file, fsyncs it when
 * durable. Pages stay cached. */
CC_WUR cc_err cc_gas_drain(cc_gas *gas);
/* Collective: drain, then every rank empties its DRAM slots (owned pages and copies): the next get
 * of every page is an SSD miss (benchmark). With owned_only, copies stay (coop-hit rows). */
CC_WUR cc_err cc_gas_evict_all(cc_gas *gas, bool owned_only);
void cc_gas_get_stats(const cc_gas *gas, cc_gas_stats *stats);
/* Not collective: creates, writes one block to and removes a page file in dir, so an SSD dir that
 * refuses O_DIRECT (or io_uring) is reported before any run, with the fallback rules. */
CC_WUR cc_err cc_gas_probe_dir(const char *dir, bool fallback);

/* The "gas" checkpoint backend (io_gas.c) takes its page size, DRAM budget, SSD capacity and SSD
 * directory from here (defaults otherwise). With ssd_dir empty the owners' page files go into the
 * checkpoint's own directory (DIR/ckpt.<it>/gas.<owner>.pages), so the atomic commit, manifest and
 * retention cover them; with ssd_dir set, into ssd_dir/<basename of DIR>/ckpt.<it>/ (node-local
 * disks), the receipts name them by absolute path, and each owner deletes its files of checkpoints
 * the checkpointer will not keep (keep = its retention) at every checkpoint. */
void cc_gas_reset_stats(cc_gas *gas);

#endif
