/* gas_internal.h: the global memory store's pieces shared inside io/backends/gas/ only: the SSD tier (the
 * owner's page file, gas_ssd.c, also read by the "gas" checkpoint backend's restart, io_gas.c)
 * and the store's state (below). */
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

/* ------------------------------------------------------------------------------------------------
 * The store's state, shared by its files: gas_geometry.c (who owns which page, nodes, partners,
 * the probes of an SSD directory), gas_store.c (creation, reuse, destruction, statistics),
 * gas_owner.c (the side that holds pages in DRAM slots, serves requests and drains to the SSD
 * tier) and gas_requester.c (the side that asks: put and get of any byte range, blocking or not).
 * The design is in cc_gas.h.
 * ---------------------------------------------------------------------------------------------- */

#define TAG_REQ 1
#define GAS_OUT_MAX 256
#define TAG_REPLY_FIRST 16
#define TAG_REPLY_COUNT 10000
/* two-sided pages: a tag range each way, apart from the replies (a pair of ranks may be each
 * other's owner, so a reply, a page served and a page put can share a requester's tag number);
 * the highest, 16 + 3 x 10000, stays below the MPI_TAG_UB every MPI library gives (32767) */
#define TAG_GET_DATA(tag) ((tag) + TAG_REPLY_COUNT)
#define TAG_PUT_DATA(tag) ((tag) + 2 * TAG_REPLY_COUNT)
/* a page served as messages goes in GAS_WIRE_PARTS equal parts, one tag: MPI matches them in
 * order with the requester's receives. Parts let the owner send the first ones while it still
 * reads the others from its SSD (in 1 MiB requests), so only pages of 4 x GAS_WIRE_MIN_PART and
 * more are cut: at 4 MB 4 parts cost the same as one message (probe: 0.34 ms either way across 2
 * emulated nodes), at 64 KiB 4 parts of 16 KiB lost 15-30% of a DRAM hit's bandwidth */
#define GAS_WIRE_PARTS 4
#define GAS_WIRE_MIN_PART ((size_t)512 << 10)

enum { M_PUT_REQ = 1, M_PUT_DONE, M_GET_REQ, M_GET_DONE, M_DROP };
enum { GR_OK = 0, GR_BUSY, GR_UNWRITTEN };
enum { FROM_DRAM = 1, FROM_SSD, FROM_COOP, FROM_LOCAL };
enum { SLOT_FREE = 0, SLOT_OWNED, SLOT_COPY };

typedef struct { /* request, done and reply messages (MPI_BYTE) */
  int32_t type, reply_tag, slot, flags;
  int64_t page;
  uint64_t len;
  uint32_t crc;
  int32_t status, source, from;
  uint32_t sent_crc; /* reply to a get whose page was sent as a message: the owner's verdict, the
                        CRC32C of the slot it sent (crc is the directory's) */
} gas_msg;

typedef struct {
  int64_t page; /* owned page or copied page; -1 when free */
  int kind, pins;
  bool dirty, orphan; /* orphan: replaced by a newer version while pinned; freed at unpin */
  bool receiving;     /* two-sided put: rreq receives the page from the requester */
  MPI_Request rreq;
  uint64_t lru;
  size_t len;
  uint32_t crc;
} gas_slot;

typedef struct {
  int slot; /* DRAM slot or -1 */
  bool valid, on_ssd, pending;
  size_t len;
  uint32_t crc;
  int n_sharers;
  int sharer[GAS_MAX_SHARERS], sharer_slot[GAS_MAX_SHARERS];
} gas_dir;

struct cc_gas {
  MPI_Comm comm;
  int rank, size, n_nodes;
  int *node, *partner, *home_index; /* [size] */
  cc_gas_params p;
  int64_t pages_per_rank, n_owned;
  MPI_Win win;
  char *slots;         /* page-aligned start of the slot area inside the window */
  MPI_Aint *slot_disp; /* [size]: where each rank's slot area starts in its window */
  char **peer_slots;   /* [size]: every rank's slot area mapped here (one node: shared window,
                          load/store), or NULL (MPI_Put / MPI_Get) */
  int n_slots;
  int wire_parts;   /* messages a served page goes in (GAS_WIRE_PARTS or 1) */
  size_t wire_part; /* page_bytes / wire_parts */
  gas_slot *slot;
  gas_dir *dir; /* [n_owned] */
  gas_ssd *ssd;
  char ssd_path[CC_IO_PATH_MAX];
  uint64_t clock;
  int next_tag;
  char *scratch; /* one page: partial-page gets */
  cc_gas_stats stats;
  /* done / drop messages in flight: MPI_Issend, so that once they complete the owner has received
   * (and handled) them; cc_gas_barrier waits for all of them first, so a barrier never overtakes a
   * done message and leaves a page pinned */
  struct gas_out {
    gas_msg m;
    MPI_Request req;
    bool busy;
  } out[GAS_OUT_MAX];
  int n_out;
  /* pages served as messages: MPI_Isend from a slot, which stays pinned until the send completes
   * (the requester's done message may overtake the completion of the send) */
  struct gas_page_out {
    MPI_Request req;
    int slot;
    bool busy;
  } page_out[GAS_OUT_MAX];
  int n_page_out;
};

#define GAS_IN_FLIGHT 32 /* page requests a handle keeps outstanding */

struct cc_gas_handle {
  int n_ops, n_done, n_started;
  struct gas_op *op;
};

typedef struct gas_op {
  bool put, done, coop_ok, waiting;
  bool data_posted; /* two-sided get: dreq receive the owner's page in parts (or empty messages) */
  int64_t page;
  char *buf;
  char *tmp; /* two-sided get of a partial page: the whole page lands here */
  size_t len;
  uint32_t crc;
  int owner, tag;
  MPI_Request rreq, dreq[GAS_WIRE_PARTS];
  gas_msg reply;
} gas_op;

/* Index of an owned page (this rank owns it) in the directory and the SSD page file. */
static inline int64_t gas_owned_index(const cc_gas *gas, int64_t page)
{
  int64_t home = page / gas->pages_per_rank;
  return gas->home_index[home] * gas->pages_per_rank + page % gas->pages_per_rank;
}

/* ---- gas_geometry.c ---------------------------------------------------------------------------
 * Node index of every rank (nodes numbered by their lowest rank), each home's partner and the
 * number of nodes of comm; collective, cached on comm. */
CC_WUR cc_err gas_map_nodes(MPI_Comm comm, int rank, int size, int *node, int *partner,
                            int *n_nodes);
/* The same from each rank's node leader (lead[r]: the lowest rank on r's node), without MPI:
 * nodes numbered in the order of their leaders; on one node a home's partner is the next rank,
 * otherwise the rank of the next node at the home's position on its own node, modulo the next
 * node's size. O(size) steps and 3 size + 1 ints of scratch; *steps (if not NULL) grows by the
 * loop steps taken (the growth check of the tests counts them). A lead[] that is not a node
 * leader map is refused. */
CC_WUR cc_err gas_layout_from_leaders(int size, const int *lead, int *node, int *partner,
                                      int *n_nodes, int64_t *steps);
/* home_index[r]: the homes of owner partner[r] below r (where home r sits in the owner's page
 * directory and page file); O(size) steps, size ints of scratch. */
CC_WUR cc_err gas_home_index(int size, const int *partner, int *home_index, int64_t *steps);

/* ---- gas_owner.c: slots and the request handler, used by the requester ------------------------ */
char *gas_slot_ptr(cc_gas *gas, int s); /* this rank's slot s */
/* Whether pages of rank r travel as messages (another node) rather than through the window. */
bool gas_two_sided(const cc_gas *gas, int r);
/* Slot s of rank r as a local address (this rank, or one node: shared window); NULL otherwise. */
char *gas_peer_page(cc_gas *gas, int r, int s);
/* A free slot (evicting the least recently used unpinned one); -1 if all are pinned. */
CC_WUR cc_err gas_alloc_slot(cc_gas *gas, int *out);
CC_WUR cc_err gas_send_async(cc_gas *gas, int dest, const gas_msg *m);
CC_WUR cc_err gas_send_msg(cc_gas *gas, int dest, gas_msg *m, int tag);
/* Handle m from rank from; requests fill *reply (status, where the page is). */
CC_WUR cc_err gas_handle_message(cc_gas *gas, const gas_msg *m, int from, gas_msg *reply);

#endif
