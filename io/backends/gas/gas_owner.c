/* gas_owner.c: the owner's side of the global memory store: the DRAM slots of the pages this rank
 * owns or caches (LRU eviction to the SSD tier, gas_ssd.c), the page directory, the handler of
 * put/get/done/drop requests served from polling (cc_gas_progress, cc_gas_barrier), and the
 * drain of dirty pages to the SSD page file. */
#include "gas_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- slots ----------------------------------------------------------------------------------- */
char *gas_slot_ptr(cc_gas *gas, int s)
{
  return gas->slots + (size_t)s * gas->p.page_bytes;
}

/* Whether a page moves between this rank and rank r as a message (MPI_Send to a receive posted in
 * advance) rather than by load/store: across nodes. Why not MPI_Get/MPI_Put there: when the MPI
 * library emulates RMA with active messages (ch4:ucx without a zero-copy transport, e.g. in a
 * container that blocks process_vm_readv), every fragment waits for the target's progress, and a
 * 4 MB MPI_Get took 10x a 4 MB MPI_Send; the owner is in the store's polling loop anyway.
 * Cooperative copies are still read with MPI_Get (the holder is not told). */
bool gas_two_sided(const cc_gas *gas, int r)
{
  return r != gas->rank && gas->peer_slots == NULL;
}

/* Slot s of rank r as a local address: always for this rank, for the others on one node (shared
 * window); NULL otherwise (MPI_Put / MPI_Get). */
char *gas_peer_page(cc_gas *gas, int r, int s)
{
  if (r == gas->rank) return gas_slot_ptr(gas, s);
  return gas->peer_slots ? gas->peer_slots[r] + (size_t)s * gas->p.page_bytes : NULL;
}

static void remove_sharer(gas_dir *d, int rank, int slot)
{
  for (int k = 0; k < d->n_sharers; k++)
    if (d->sharer[k] == rank && (slot < 0 || d->sharer_slot[k] == slot)) {
      d->sharer[k]      = d->sharer[d->n_sharers - 1];
      d->sharer_slot[k] = d->sharer_slot[d->n_sharers - 1];
      d->n_sharers--;
      k--;
    }
}

/* Free slot s: an owned dirty page goes to the SSD first; a copy is dropped, its owner told. */
static cc_err evict(cc_gas *gas, int s)
{
  gas_slot *sl = &gas->slot[s];
  if (sl->kind == SLOT_OWNED) {
    gas_dir *d = &gas->dir[gas_owned_index(gas, sl->page)];
    if (sl->dirty && !sl->orphan) {
      CC_CALL(
          gas_ssd_write(gas->ssd, cc_gas_ssd_offset(gas, sl->page), gas_slot_ptr(gas, s), sl->len));
      gas->stats.ssd_bytes_written += (int64_t)sl->len;
      d->on_ssd = true;
    }
    if (!sl->orphan) d->slot = -1;
    gas->stats.evictions++;
  } /* a copy is just dropped: a reader racing with its reuse fails the CRC and asks the owner */
  sl->page  = -1;
  sl->kind  = SLOT_FREE;
  sl->dirty = sl->orphan = false;
  return CC_OK;
}

/* A free slot (evicting the least recently used unpinned one); -1 if all are pinned. */
cc_err gas_alloc_slot(cc_gas *gas, int *out)
{
  int best = -1;
  for (int s = 0; s < gas->n_slots; s++) {
    gas_slot *sl = &gas->slot[s];
    if (sl->kind == SLOT_FREE) {
      *out = s;
      return CC_OK;
    }
    if (sl->pins == 0 && (best < 0 || sl->lru < gas->slot[best].lru)) best = s;
  }
  *out = best;
  if (best < 0) return CC_OK;
  gas_slot *sl = &gas->slot[best];
  int64_t page = sl->page;
  bool copy    = sl->kind == SLOT_COPY;
  CC_CALL(evict(gas, best));
  if (copy) { /* tell the owner this rank no longer holds the copy */
    gas_msg m = {.type = M_DROP, .slot = best, .page = page};
    int owner = cc_gas_owner(gas, page);
    if (owner == gas->rank)
      remove_sharer(&gas->dir[gas_owned_index(gas, page)], gas->rank, best);
    else
      CC_CALL(gas_send_async(gas, owner, &m));
  }
  return CC_OK;
}

static void unpin(cc_gas *gas, int s)
{
  if (s < 0 || s >= gas->n_slots) return;
  gas_slot *sl = &gas->slot[s];
  if (sl->pins > 0) sl->pins--;
  if (sl->pins == 0 && sl->orphan) {
    sl->page = -1, sl->kind = SLOT_FREE, sl->orphan = sl->dirty = false;
  }
}

/* ---- owner: the request handler -------------------------------------------------------------- */
/* Complete the sends that have been matched: done / drop messages, and pages served (unpinned). */
static cc_err reap_sends(cc_gas *gas)
{
  for (int i = 0; gas->n_out > 0 && i < GAS_OUT_MAX; i++)
    if (gas->out[i].busy) {
      int flag;
      CC_MPI(MPI_Test(&gas->out[i].req, &flag, MPI_STATUS_IGNORE));
      if (flag) gas->out[i].busy = false, gas->n_out--;
    }
  for (int i = 0; gas->n_page_out > 0 && i < GAS_OUT_MAX; i++)
    if (gas->page_out[i].busy) {
      int flag;
      CC_MPI(MPI_Test(&gas->page_out[i].req, &flag, MPI_STATUS_IGNORE));
      if (flag) gas->page_out[i].busy = false, gas->n_page_out--, unpin(gas, gas->page_out[i].slot);
    }
  return CC_OK;
}

/* Slot s stays pinned until its send req completes; with every entry in use, wait for one (each
 * requester posted its receive in advance: the sends complete as the requesters poll). */
static cc_err track_page_send(cc_gas *gas, MPI_Request req, int s)
{
  while (gas->n_page_out == GAS_OUT_MAX) {
    CC_CALL(reap_sends(gas));
    if (gas->n_page_out == GAS_OUT_MAX) sched_yield();
  }
  for (int i = 0; i < GAS_OUT_MAX; i++)
    if (!gas->page_out[i].busy) {
      gas->page_out[i] = (struct gas_page_out){.req = req, .slot = s, .busy = true};
      gas->slot[s].pins++;
      gas->n_page_out++;
      return CC_OK;
    }
  CC_FAIL(CC_ERR_IO, "no free page send slot although %d of %d are in flight", gas->n_page_out,
          GAS_OUT_MAX);
}

/* A get's page going out as messages (serve_page): the parts sent so far and their CRC32C. */
typedef struct {
  cc_gas *gas;
  int dest, tag, slot;
  size_t len;   /* bytes of the page */
  int sent;     /* parts sent */
  uint32_t crc; /* CRC32C of the bytes of the parts sent */
  bool seam;    /* "gas-corrupt" still to apply: the page is being read from the SSD */
} gas_serve;

/* Part k of the page is [part_begin(k), part_begin(k + 1)), empty past its length. */
static size_t part_begin(const gas_serve *sv, int k)
{
  size_t b = (size_t)k * sv->gas->wire_part;
  return b < sv->len ? b : sv->len;
}

/* [0, bytes) of the page is in the slot: send every part it completes (all that are left once
 * bytes == len), then extend the CRC32C over them while the requester pulls them (MPI-3 allows
 * reading a pending send's buffer). */
static cc_err serve_ready(void *ctx, size_t bytes)
{
  gas_serve *sv = ctx;
  cc_gas *gas   = sv->gas;
  char *page    = gas_slot_ptr(gas, sv->slot);
  if (sv->seam && bytes > sv->len / 2) { /* test seam: a bit flip in DRAM, before it is sent */
    page[sv->len / 2] ^= 0x5a;
    sv->seam = false;
  }
  size_t from = part_begin(sv, sv->sent);
  for (; sv->sent < gas->wire_parts && part_begin(sv, sv->sent + 1) <= bytes; sv->sent++) {
    size_t begin = part_begin(sv, sv->sent), end = part_begin(sv, sv->sent + 1);
    MPI_Request req;
    CC_MPI(MPI_Isend(page + begin, (int)(end - begin), MPI_BYTE, sv->dest, TAG_GET_DATA(sv->tag),
                     gas->comm, &req));
    CC_CALL(track_page_send(gas, req, sv->slot));
  }
  size_t upto = part_begin(sv, sv->sent);
  sv->crc     = cc_io_crc32c(sv->crc, page + from, upto - from);
  return CC_OK;
}

/* Messages path: a get's page leaves as soon as the request is handled, in wire_parts MPI_Isends
 * into the receives the requester posted in advance (empty messages when the page is not the
 * owner's to send). While the requester's core pulls them (ch4:ucx rendezvous: the receiver
 * copies), this core checks the slot against the directory's CRC32C, and the answer, sent next,
 * carries the verdict: copy and CRC32C overlap instead of following one another on the requester.
 * A page not in DRAM is read from the SSD here, each part sent as soon as the read has passed it,
 * so that most of the copy overlaps the read. The CRC guards the page at rest (DRAM, SSD); the
 * wire is MPI's. */
static cc_err serve_page(cc_gas *gas, int dest, int tag, gas_msg *reply)
{
  bool ours = reply->status == GR_OK && (reply->from == FROM_DRAM || reply->from == FROM_SSD);
  if (!ours) {
    for (int k = 0; k < gas->wire_parts; k++)
      CC_MPI(MPI_Send(NULL, 0, MPI_BYTE, dest, TAG_GET_DATA(tag), gas->comm));
    return CC_OK;
  }
  gas_serve sv = {.gas = gas, .dest = dest, .tag = tag, .slot = reply->slot, .len = reply->len};
  if (reply->from == FROM_SSD) {
    sv.seam = cc_io_inject("gas-corrupt") && sv.len > 0;
    CC_CALL(gas_ssd_read_stream(gas->ssd, cc_gas_ssd_offset(gas, reply->page),
                                gas_slot_ptr(gas, sv.slot), sv.len, serve_ready, &sv));
    gas->stats.ssd_bytes_read += (int64_t)sv.len;
  }
  CC_CALL(serve_ready(&sv, sv.len)); /* a DRAM hit: every part; after a read: none left */
  reply->sent_crc = sv.crc;
  return CC_OK;
}

cc_err cc_gas_progress(cc_gas *gas);

cc_err gas_send_async(cc_gas *gas, int dest, const gas_msg *m)
{
  while (gas->n_out == GAS_OUT_MAX) { /* all in flight: serve until one is matched */
    CC_CALL(cc_gas_progress(gas));
    if (gas->n_out == GAS_OUT_MAX) sched_yield();
  }
  for (int i = 0; i < GAS_OUT_MAX; i++)
    if (!gas->out[i].busy) {
      gas->out[i].m = *m;
      CC_MPI(MPI_Issend(&gas->out[i].m, (int)sizeof *m, MPI_BYTE, dest, TAG_REQ, gas->comm,
                        &gas->out[i].req));
      gas->out[i].busy = true;
      gas->n_out++;
      return CC_OK;
    }
  CC_FAIL(CC_ERR_IO, "no free send slot although %d of %d are in flight", gas->n_out, GAS_OUT_MAX);
}

cc_err gas_send_msg(cc_gas *gas, int dest, gas_msg *m, int tag)
{
  CC_MPI(MPI_Send(m, (int)sizeof *m, MPI_BYTE, dest, tag, gas->comm));
  return CC_OK;
}

/* M_PUT_REQ: a slot for the page's new version (a new one while readers hold the old), busy when a
 * put of the page is pending or no slot is free. */
static cc_err put_request(cc_gas *gas, const gas_msg *m, int from, gas_dir *d, gas_msg *reply)
{
  if (d->pending) {
    reply->status = GR_BUSY;
    return CC_OK;
  }
  int s = d->slot;
  if (s >= 0 && gas->slot[s].pins > 0) { /* readers hold the old version: new slot */
    gas->slot[s].orphan = true;
    d->slot = s = -1;
  }
  if (s < 0) {
    CC_CALL(gas_alloc_slot(gas, &s));
    if (s < 0) {
      reply->status = GR_BUSY;
      return CC_OK;
    }
  }
  gas_slot *sl = &gas->slot[s];
  if (gas_two_sided(gas, from)) { /* the page arrives as a message into the slot */
    CC_MPI(MPI_Irecv(gas_slot_ptr(gas, s), (int)gas->p.page_bytes, MPI_BYTE, from,
                     TAG_PUT_DATA(m->reply_tag), gas->comm, &sl->rreq));
    sl->receiving = true;
  }
  sl->page = m->page, sl->kind = SLOT_OWNED, sl->pins++, sl->lru = ++gas->clock;
  d->slot = s, d->pending = true, d->n_sharers = 0; /* cached copies are stale now */
  reply->slot = s, reply->source = gas->rank, reply->from = FROM_DRAM;
  return CC_OK;
}

/* M_PUT_DONE: the page's new version is in its slot: valid, dirty, the slot unpinned. */
static cc_err put_done(cc_gas *gas, const gas_msg *m, gas_dir *d)
{
  gas_slot *sl = &gas->slot[m->slot];
  if (sl->receiving) { /* sent before the done message: arrived or arriving */
    sl->receiving = false;
    CC_MPI(MPI_Wait(&sl->rreq, MPI_STATUS_IGNORE));
  } else
    CC_MPI(MPI_Win_sync(gas->win)); /* the requester's stores visible to our loads */
  sl->dirty = true, sl->len = m->len, sl->crc = m->crc;
  d->valid = true, d->on_ssd = false, d->pending = false, d->len = m->len, d->crc = m->crc;
  unpin(gas, m->slot);
  return CC_OK;
}

/* M_GET_REQ: where the requester reads the page: its own copy, another rank's (cooperative), this
 * owner's DRAM slot, or a slot filled from the SSD; busy or unwritten otherwise. */
static cc_err get_request(cc_gas *gas, const gas_msg *m, int from, gas_dir *d, gas_msg *reply)
{
  if (!d->valid) {
    reply->status = d->pending ? GR_BUSY : GR_UNWRITTEN;
    return CC_OK;
  }
  if (d->pending) {
    reply->status = GR_BUSY;
    return CC_OK;
  }
  reply->len = d->len, reply->crc = d->crc;
  for (int k = 0; k < d->n_sharers; k++) /* the requester's own copy */
    if (d->sharer[k] == from && m->flags) {
      reply->source = from, reply->slot = d->sharer_slot[k], reply->from = FROM_LOCAL;
      return CC_OK;
    }
  int s = d->slot;
  if (s < 0 && m->flags && d->n_sharers > 0) { /* cooperative: another rank's DRAM copy */
    int k         = (int)(gas->clock++ % (uint64_t)d->n_sharers);
    reply->source = d->sharer[k], reply->slot = d->sharer_slot[k], reply->from = FROM_COOP;
    return CC_OK;
  }
  reply->from = FROM_DRAM;
  if (s < 0) { /* from the SSD into a slot */
    CC_CALL(gas_alloc_slot(gas, &s));
    if (s < 0) {
      reply->status = GR_BUSY;
      return CC_OK;
    }
    CC_CHECK(d->on_ssd, CC_ERR_IO, "page %lld of owner %d is neither in DRAM nor on the SSD",
             (long long)m->page, gas->rank);
    if (!gas_two_sided(gas, from)) { /* across nodes serve_page reads it, sending parts meanwhile */
      CC_CALL(
          gas_ssd_read(gas->ssd, cc_gas_ssd_offset(gas, m->page), gas_slot_ptr(gas, s), d->len));
      gas->stats.ssd_bytes_read += (int64_t)d->len;
      CC_MPI(MPI_Win_sync(gas->win)); /* before the requester's load/store or MPI_Get */
    }
    gas_slot *sl = &gas->slot[s];
    sl->page = m->page, sl->kind = SLOT_OWNED, sl->dirty = false, sl->len = d->len;
    sl->crc     = d->crc;
    d->slot     = s;
    reply->from = FROM_SSD;
  }
  gas_slot *sl = &gas->slot[s];
  sl->pins++, sl->lru = ++gas->clock;
  bool unread = reply->from == FROM_SSD && gas_two_sided(gas, from); /* seam: in serve_ready */
  if (cc_io_inject("gas-corrupt") && d->len > 0 && !unread) { /* test seam: a bit flip in DRAM */
    gas_slot_ptr(gas, s)[d->len / 2] ^= 0x5a;
    CC_MPI(MPI_Win_sync(gas->win));
  }
  reply->source = gas->rank, reply->slot = s;
  return CC_OK;
}

/* M_GET_DONE: the slot unpinned; the requester's copy recorded as a sharer, or dropped when it
 * failed its check. */
static void get_done(cc_gas *gas, const gas_msg *m, int from, gas_dir *d)
{
  if (m->from == FROM_DRAM || m->from == FROM_SSD) unpin(gas, m->slot);
  if (m->status == 1 && m->source >= 0) /* requester now holds a copy in slot m->source */
    remove_sharer(d, from, -1);         /* one entry per rank: its newest copy */
  if (m->status == 1 && m->source >= 0)
    if (d->n_sharers < GAS_MAX_SHARERS && !d->pending) {
      d->sharer[d->n_sharers]        = from;
      d->sharer_slot[d->n_sharers++] = m->source;
    }
  if (m->status == 2) remove_sharer(d, m->source, m->slot); /* a copy failed its check */
}

/* Handle m from rank from; requests fill *reply (status, where the page is). */
cc_err gas_handle_message(cc_gas *gas, const gas_msg *m, int from, gas_msg *reply)
{
  memset(reply, 0, sizeof *reply);
  reply->page = m->page;
  CC_CHECK(m->page >= 0 && m->page < gas->size * gas->pages_per_rank &&
               cc_gas_owner(gas, m->page) == gas->rank,
           CC_ERR_IO, "rank %d sent a request for page %lld, which rank %d does not own", from,
           (long long)m->page, gas->rank);
  gas_dir *d = &gas->dir[gas_owned_index(gas, m->page)];
  switch (m->type) {
  case M_PUT_REQ:
    CC_CALL(put_request(gas, m, from, d, reply));
    return CC_OK;
  case M_PUT_DONE:
    CC_CALL(put_done(gas, m, d));
    return CC_OK;
  case M_GET_REQ:
    CC_CALL(get_request(gas, m, from, d, reply));
    return CC_OK;
  case M_GET_DONE:
    get_done(gas, m, from, d);
    return CC_OK;
  case M_DROP:
    remove_sharer(d, from, m->slot);
    return CC_OK;
  }
  CC_FAIL(CC_ERR_IO, "unknown store message %d from rank %d", m->type, from);
}

cc_err cc_gas_progress(cc_gas *gas)
{
  if (gas->n_out || gas->n_page_out) CC_CALL(reap_sends(gas));
  for (;;) {
    int flag;
    MPI_Status st;
    CC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, gas->comm, &flag, &st));
    if (!flag) return CC_OK;
    gas_msg m, reply;
    CC_MPI(MPI_Recv(&m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, TAG_REQ, gas->comm,
                    MPI_STATUS_IGNORE));
    CC_CALL(gas_handle_message(gas, &m, st.MPI_SOURCE, &reply));
    if (m.type == M_GET_REQ && gas_two_sided(gas, st.MPI_SOURCE))
      CC_CALL(serve_page(gas, st.MPI_SOURCE, m.reply_tag, &reply));
    if (m.type == M_PUT_REQ || m.type == M_GET_REQ)
      CC_CALL(gas_send_msg(gas, st.MPI_SOURCE, &reply, m.reply_tag));
  }
}

cc_err cc_gas_barrier(cc_gas *gas)
{
  /* our done messages received (and handled) and the pages we served sent before the barrier:
   * no slot stays pinned past it */
  while (gas->n_out > 0 || gas->n_page_out > 0) {
    CC_CALL(cc_gas_progress(gas));
    if (gas->n_out > 0 || gas->n_page_out > 0) sched_yield();
  }
  MPI_Request req;
  CC_MPI(MPI_Ibarrier(gas->comm, &req));
  for (int done = 0; !done;) {
    CC_CALL(cc_gas_progress(gas));
    CC_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (!done) sched_yield(); /* oversubscribed: let the rank we wait for run */
  }
  return CC_OK;
}

/* ---- drain, eviction, statistics ------------------------------------------------------------- */
static cc_err drain_local(cc_gas *gas, bool empty, bool owned_only)
{
  for (int s = 0; s < gas->n_slots; s++) {
    gas_slot *sl = &gas->slot[s];
    if (sl->kind == SLOT_OWNED && sl->dirty && !sl->orphan) {
      uint32_t crc = cc_io_crc32c(0, gas_slot_ptr(gas, s), sl->len);
      CC_CHECK(crc == sl->crc, CC_ERR_IO,
               "page %lld of owner %d is corrupt in DRAM: CRC32C %08x, the directory says %08x; "
               "not written to %s",
               (long long)sl->page, gas->rank, crc, sl->crc, gas->ssd_path);
      CC_CALL(
          gas_ssd_write(gas->ssd, cc_gas_ssd_offset(gas, sl->page), gas_slot_ptr(gas, s), sl->len));
      gas->stats.ssd_bytes_written += (int64_t)sl->len;
      gas->dir[gas_owned_index(gas, sl->page)].on_ssd = true;
      sl->dirty                                       = false;
    }
    if (empty && sl->kind != SLOT_FREE && (sl->kind == SLOT_OWNED || !owned_only)) {
      CC_CHECK(sl->pins == 0, CC_ERR_IO, "slot %d of rank %d still pinned at eviction", s,
               gas->rank);
      if (sl->kind == SLOT_OWNED) gas->dir[gas_owned_index(gas, sl->page)].slot = -1;
      if (sl->kind == SLOT_COPY) { /* directories are cleared below by each owner */
      }
      sl->page = -1, sl->kind = SLOT_FREE;
    }
  }
  if (empty && !owned_only)
    for (int64_t i = 0; i < gas->n_owned; i++) gas->dir[i].n_sharers = 0;
  if (gas->ssd && gas->p.durable) CC_CALL(gas_ssd_sync(gas->ssd));
  return CC_OK;
}

cc_err cc_gas_drain(cc_gas *gas)
{
  CC_CALL(cc_gas_barrier(gas));
  CC_CALL(cc_agree(gas->comm, drain_local(gas, false, false)));
  return CC_OK;
}

cc_err cc_gas_evict_all(cc_gas *gas, bool owned_only)
{
  CC_CALL(cc_gas_barrier(gas));
  CC_CALL(cc_agree(gas->comm, drain_local(gas, true, owned_only)));
  return CC_OK;
}
