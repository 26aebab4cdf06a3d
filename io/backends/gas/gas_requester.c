/* gas_requester.c: the requester's side of the global memory store: a put or get of any byte range
 * cut into page operations (up to GAS_IN_FLIGHT outstanding per handle), each asking the page's
 * owner, then moving the page through the window or as messages, with CRC32C checks and
 * cooperative copies; blocking and non-blocking (cc_gas_*_nb, cc_gas_wait). */
#include "gas_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- requester ------------------------------------------------------------------------------- */
static cc_err op_request(cc_gas *gas, gas_op *op)
{
  gas_msg m = {.type = op->put ? M_PUT_REQ : M_GET_REQ, .page = op->page, .len = op->len};
  m.flags   = op->coop_ok;
  if (op->owner == gas->rank) { /* own page: the handler runs here, no message */
    CC_CALL(gas_handle_message(gas, &m, gas->rank, &op->reply));
    op->waiting = false;
    return CC_OK;
  }
  op->tag       = TAG_REPLY_FIRST + gas->next_tag;
  gas->next_tag = (gas->next_tag + 1) % TAG_REPLY_COUNT;
  m.reply_tag   = op->tag;
  CC_MPI(MPI_Irecv(&op->reply, (int)sizeof op->reply, MPI_BYTE, op->owner, op->tag, gas->comm,
                   &op->rreq));
  if (!op->put && gas_two_sided(gas, op->owner)) { /* the page follows the reply */
    if (op->len < gas->p.page_bytes && !op->tmp) CC_CALL(cc_malloc(gas->p.page_bytes, 1, &op->tmp));
    char *land      = op->tmp ? op->tmp : op->buf;
    op->data_posted = true;
    for (int k = 0; k < GAS_WIRE_PARTS; k++) op->dreq[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < gas->wire_parts; k++) /* one tag: matched in order, part k at k x part */
      CC_MPI(MPI_Irecv(land + (size_t)k * gas->wire_part, (int)gas->wire_part, MPI_BYTE, op->owner,
                       TAG_GET_DATA(op->tag), gas->comm, &op->dreq[k]));
  }
  CC_CALL(gas_send_msg(gas, op->owner, &m, TAG_REQ));
  op->waiting = true;
  return CC_OK;
}

static cc_err send_done(cc_gas *gas, int owner, gas_msg *m)
{
  if (owner == gas->rank) {
    gas_msg ignored;
    CC_CALL(gas_handle_message(gas, m, gas->rank, &ignored));
  } else
    CC_CALL(gas_send_async(gas, owner, m));
  return CC_OK;
}

/* Keep a copy of a page just fetched (cooperative caching); returns the slot or -1. */
static cc_err cache_copy(cc_gas *gas, const gas_op *op, const char *data, int *slot)
{
  *slot = -1;
  if (!gas->p.coop || op->owner == gas->rank) return CC_OK;
  int s;
  CC_CALL(gas_alloc_slot(gas, &s));
  if (s < 0) return CC_OK;
  memcpy(gas_slot_ptr(gas, s), data, op->reply.len);
  CC_MPI(MPI_Win_sync(gas->win)); /* local stores before remote readers (unified model) */
  gas_slot *sl = &gas->slot[s];
  sl->page = op->page, sl->kind = SLOT_COPY, sl->len = op->reply.len, sl->crc = op->reply.crc;
  sl->lru = ++gas->clock;
  *slot   = s;
  return CC_OK;
}

/* Messages path of a put: the page goes to the receive the owner posted into its slot, and this
 * core computes the CRC32C of the buffer while the owner's core pulls it (ch4:ucx rendezvous; MPI-3
 * allows reading a pending send's buffer): max(copy, CRC32C) instead of their sum. */
static cc_err put_message(cc_gas *gas, gas_op *op, int owner)
{
  MPI_Request req;
  CC_MPI(MPI_Isend(op->buf, (int)op->len, MPI_BYTE, owner, TAG_PUT_DATA(op->tag), gas->comm, &req));
  op->crc = cc_io_crc32c(0, op->buf, op->len);
  CC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)); /* the caller's buffer is free when the op is done */
  return CC_OK;
}

/* Messages path of a get: the parts of the page (or empty messages) have arrived; bytes in all. */
static cc_err wait_parts(cc_gas *gas, gas_op *op, size_t *bytes)
{
  MPI_Status st[GAS_WIRE_PARTS];
  CC_MPI(MPI_Waitall(gas->wire_parts, op->dreq, st));
  *bytes = 0;
  for (int k = 0; k < gas->wire_parts; k++) {
    int count;
    CC_MPI(MPI_Get_count(&st[k], MPI_BYTE, &count));
    *bytes += (size_t)count;
  }
  return CC_OK;
}

/* The reply to a put arrived: the page into the owner's slot (mapped: by load/store; else as a
 * message or an MPI_Put at disp), its CRC32C computed meanwhile, then the owner told. */
static cc_err put_complete(cc_gas *gas, gas_op *op, char *mapped, MPI_Aint disp)
{
  gas_msg *r = &op->reply;
  if (mapped) { /* slot <- buf and its CRC32C in one pass, then visible to the owner */
    op->crc = io_crc32c_copy(0, mapped, op->buf, op->len);
    CC_MPI(MPI_Win_sync(gas->win));
  } else if (gas_two_sided(gas, r->source)) {
    CC_CALL(put_message(gas, op, r->source));
  } else { /* complete at the target before the owner hears it is done */
    op->crc = cc_io_crc32c(0, op->buf, op->len); /* while the request was out: not before */
    CC_MPI(MPI_Put(op->buf, (int)op->len, MPI_BYTE, r->source, disp, (int)op->len, MPI_BYTE,
                   gas->win));
    CC_MPI(MPI_Win_flush(r->source, gas->win));
  }
  gas_msg done = {.type = M_PUT_DONE, .page = op->page, .slot = r->slot, .len = op->len};
  done.crc     = op->crc;
  CC_CALL(send_done(gas, op->owner, &done));
  gas->stats.puts++;
  op->done = true;
  return CC_OK;
}

/* The reply arrived: move the data, tell the owner. */
static cc_err op_complete(cc_gas *gas, gas_op *op)
{
  gas_msg *r    = &op->reply;
  bool received = false; /* two-sided: the page is in op->tmp or op->buf */
  if (op->data_posted) { /* sent before the reply (maybe empty) */
    op->data_posted = false;
    size_t bytes    = 0;
    CC_CALL(wait_parts(gas, op, &bytes));
    received = bytes > 0;
    CC_CHECK(!received || bytes == r->len, CC_ERR_IO,
             "page %lld from owner %d arrived with %zu of its %llu bytes", (long long)op->page,
             op->owner, bytes, (unsigned long long)r->len);
  }
  if (r->status == GR_BUSY) { /* all slots pinned or a put in flight: ask again */
    gas->stats.busy_retries++;
    CC_CALL(cc_gas_progress(gas));
    CC_CALL(op_request(gas, op));
    return CC_OK;
  }
  CC_CHECK(r->status != GR_UNWRITTEN, CC_ERR_IO, "page %lld (owner %d) was never written",
           (long long)op->page, op->owner);
  MPI_Aint disp = gas->slot_disp[r->source] + (MPI_Aint)r->slot * (MPI_Aint)gas->p.page_bytes;
  char *mapped  = gas_peer_page(gas, r->source, r->slot); /* NULL: only through MPI RMA */
  if (op->put) {
    CC_CALL(put_complete(gas, op, mapped, disp));
    return CC_OK;
  }
  /* get: the whole page is read (its CRC covers it); a shorter request goes through scratch */
  gas_msg done = {.type = M_GET_DONE, .page = op->page, .slot = r->slot, .from = r->from};
  done.source  = -1;
  if (r->len < op->len) {
    CC_CALL(send_done(gas, op->owner, &done)); /* unpin before failing */
    op->done = true;
    CC_FAIL(CC_ERR_IO, "page %lld (owner %d) holds %llu bytes, %zu requested", (long long)op->page,
            op->owner, (unsigned long long)r->len, op->len);
  }
  char *dest            = r->len == op->len || mapped ? op->buf : gas->scratch;
  const char *page_data = dest; /* the whole page, for a cooperative copy */
  uint32_t crc;
  if (received) { /* the owner sent it and checked its slot while it was copied: its verdict */
    dest      = op->tmp ? op->tmp : op->buf;
    page_data = dest;
    crc       = r->sent_crc;
  } else if (mapped) { /* buf <- slot and the CRC32C in one pass (the rest of a longer page: CRC
                          only) */
    CC_MPI(MPI_Win_sync(gas->win)); /* the owner's (or remote puts') stores visible here */
    crc       = io_crc32c_copy(0, dest, mapped, op->len);
    crc       = cc_io_crc32c(crc, mapped + op->len, r->len - op->len);
    page_data = mapped;
  } else {
    CC_MPI(MPI_Get(dest, (int)r->len, MPI_BYTE, r->source, disp, (int)r->len, MPI_BYTE, gas->win));
    CC_MPI(MPI_Win_flush(r->source, gas->win));
    crc = cc_io_crc32c(0, dest, r->len);
  }
  if (crc != r->crc) {
    if (r->from == FROM_COOP || r->from == FROM_LOCAL) {
      /* the copy was replaced under us: drop it from the directory, ask the owner itself */
      done.status = 2, done.source = r->source;
      CC_CALL(send_done(gas, op->owner, &done));
      gas->stats.coop_rejected++;
      op->coop_ok = false;
      CC_CALL(op_request(gas, op));
      return CC_OK;
    }
    CC_CALL(send_done(gas, op->owner, &done));
    op->done = true;
    CC_FAIL(CC_ERR_IO,
            "page %lld from owner %d is corrupt (%s): CRC32C %08x, the directory says %08x; "
            "refusing it",
            (long long)op->page, op->owner, r->from == FROM_SSD ? "read from its SSD" : "in DRAM",
            crc, r->crc);
  }
  if (dest != op->buf) memcpy(op->buf, dest, op->len);
  if (r->from == FROM_DRAM || r->from == FROM_SSD) {
    int s;
    CC_CALL(cache_copy(gas, op, page_data, &s));
    if (s >= 0) done.status = 1, done.source = s;
  }
  CC_CALL(send_done(gas, op->owner, &done));
  gas->stats.gets++;
  if (r->from == FROM_DRAM) gas->stats.dram_hits++;
  if (r->from == FROM_SSD) gas->stats.ssd_misses++;
  if (r->from == FROM_COOP) gas->stats.coop_hits++;
  if (r->from == FROM_LOCAL) gas->stats.local_hits++;
  op->done = true;
  return CC_OK;
}

/* Start requests up to GAS_IN_FLIGHT outstanding; own pages complete at once. */
static cc_err launch(cc_gas *gas, cc_gas_handle *h)
{
  while (h->n_started < h->n_ops && h->n_started - h->n_done < GAS_IN_FLIGHT) {
    gas_op *op = &h->op[h->n_started++];
    CC_CALL(op_request(gas, op));
    while (!op->done && !op->waiting) CC_CALL(op_complete(gas, op));
    if (op->done) h->n_done++;
  }
  return CC_OK;
}

static cc_err start(cc_gas *gas, bool put, int64_t offset, const void *buf, size_t n,
                    cc_gas_handle **out)
{
  *out            = NULL;
  size_t page     = gas->p.page_bytes;
  int64_t segment = (int64_t)gas->size * gas->pages_per_rank * (int64_t)page;
  CC_CHECK(offset >= 0 && offset % (int64_t)page == 0 && n > 0 && offset + (int64_t)n <= segment,
           CC_ERR_ARG,
           "store transfer of %zu bytes at offset %lld: must start on a page (%zu bytes) inside "
           "the %lld-byte segment",
           n, (long long)offset, page, (long long)segment);
  cc_gas_handle *h;
  CC_CALL(cc_calloc(1, sizeof *h, &h));
  h->n_ops   = (int)((n + page - 1) / page);
  cc_err err = cc_calloc((size_t)h->n_ops, sizeof *h->op, &h->op);
  for (int i = 0; !err && i < h->n_ops; i++) {
    gas_op *op  = &h->op[i];
    op->put     = put;
    op->page    = offset / (int64_t)page + i;
    op->buf     = (char *)buf + (size_t)i * page;
    op->len     = n - (size_t)i * page < page ? n - (size_t)i * page : page;
    op->owner   = cc_gas_owner(gas, op->page);
    op->coop_ok = gas->p.coop;
  }
  if (!err) err = launch(gas, h);
  *out = h;
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_gas_put_nb(cc_gas *gas, int64_t offset, const void *buf, size_t n, cc_gas_handle **h)
{
  CC_CALL(start(gas, true, offset, buf, n, h));
  return CC_OK;
}

cc_err cc_gas_get_nb(cc_gas *gas, int64_t offset, void *buf, size_t n, cc_gas_handle **h)
{
  CC_CALL(start(gas, false, offset, buf, n, h));
  return CC_OK;
}

static void handle_free(cc_gas_handle **hp)
{
  cc_gas_handle *h = *hp;
  if (!h) return;
  for (int i = 0; h->op && i < h->n_ops; i++) {
    if (h->op[i].waiting) { /* an error left a reply outstanding: it never comes back to us */
      MPI_Cancel(&h->op[i].rreq);
      MPI_Request_free(&h->op[i].rreq);
    }
    for (int k = 0; h->op[i].data_posted && k < GAS_WIRE_PARTS; k++)
      if (h->op[i].dreq[k] != MPI_REQUEST_NULL) {
        MPI_Cancel(&h->op[i].dreq[k]);
        MPI_Request_free(&h->op[i].dreq[k]);
      }
    cc_free(&h->op[i].tmp);
  }
  cc_free(&h->op);
  cc_free(hp);
}

static cc_err wait_impl(cc_gas *gas, cc_gas_handle *h)
{
  while (h->n_done < h->n_ops) {
    CC_CALL(cc_gas_progress(gas));
    CC_CALL(launch(gas, h));
    int before = h->n_done;
    for (int i = 0; i < h->n_started; i++) {
      gas_op *op = &h->op[i];
      if (op->done || !op->waiting) continue;
      int flag;
      CC_MPI(MPI_Test(&op->rreq, &flag, MPI_STATUS_IGNORE));
      if (!flag) continue;
      op->waiting = false;
      CC_CALL(op_complete(gas, op));
      while (!op->done && !op->waiting) CC_CALL(op_complete(gas, op)); /* own page, busy */
      if (op->done) h->n_done++;
    }
    if (h->n_done == before) sched_yield(); /* nothing arrived: let the owner run */
  }
  return CC_OK;
}

cc_err cc_gas_wait(cc_gas *gas, cc_gas_handle **hp)
{
  if (!*hp) return CC_OK;
  cc_err err = wait_impl(gas, *hp);
  handle_free(hp);
  CC_CALL(err);
  return CC_OK;
}

/* The blocking calls: a non-blocking one and its wait. */
static cc_err blocking(cc_gas *gas, bool put, int64_t offset, const void *buf, size_t n)
{
  cc_gas_handle *h;
  cc_err err = start(gas, put, offset, buf, n, &h);
  if (!err) err = wait_impl(gas, h);
  handle_free(&h);
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_gas_put(cc_gas *gas, int64_t offset, const void *buf, size_t n)
{
  return blocking(gas, true, offset, buf, n);
}

cc_err cc_gas_get(cc_gas *gas, int64_t offset, void *buf, size_t n)
{
  return blocking(gas, false, offset, buf, n);
}

bool cc_gas_page_crc(const cc_gas *gas, int64_t page, uint32_t *crc, size_t *len)
{
  if (page < 0 || page >= gas->size * gas->pages_per_rank || cc_gas_owner(gas, page) != gas->rank)
    return false;
  const gas_dir *d = &gas->dir[gas_owned_index(gas, page)];
  if (!d->valid) return false;
  *crc = d->crc;
  *len = d->len;
  return true;
}
