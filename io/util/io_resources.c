/* io_resources.c: what one owner (a checkpointer, a cc_io_handle) keeps across its opens, as a
 * table of opaque slots, one per backend that keeps something. Each backend puts its own type
 * behind its slot and frees it in its own file (its ops table's release entries); this file knows
 * no backend and no registry. */
#include "io_internal.h"

cc_err io_resources_create(io_resources **res, bool collective_owner)
{
  CC_CALL(cc_calloc(1, sizeof **res, res));
  int rc = pthread_mutex_init(&(*res)->lock, NULL);
  if (!rc) {
    rc = pthread_mutex_init(&(*res)->slot_lock, NULL);
    if (rc) pthread_mutex_destroy(&(*res)->lock);
  }
  if (rc) cc_free(res);
  CC_CHECK(rc == 0, CC_ERR_SYS, "pthread_mutex_init: %s", strerror(rc));
  (*res)->collective_owner = collective_owner;
  return CC_OK;
}

static void **slot_of(io_resources *res, const cc_io_backend_ops *backend, bool create)
{
  if (!res) return NULL;
  void **slot = NULL;
  pthread_mutex_lock(&res->slot_lock);
  for (int i = 0; i < IO_RESOURCE_SLOTS && !slot; i++) {
    if (res->slot_ops[i] == backend)
      slot = &res->slot[i];
    else if (!res->slot_ops[i] && create) {
      res->slot_ops[i] = backend;
      slot             = &res->slot[i];
    } else if (!res->slot_ops[i])
      break;
  }
  pthread_mutex_unlock(&res->slot_lock);
  return slot;
}

void **io_resources_slot(io_resources *res, const cc_io_backend_ops *backend)
{
  return slot_of(res, backend, true);
}

void **io_resources_find(io_resources *res, const cc_io_backend_ops *backend)
{
  return slot_of(res, backend, false);
}

void io_resources_free(io_resources **res)
{
  if (!*res) return;
  pthread_mutex_destroy(&(*res)->slot_lock);
  pthread_mutex_destroy(&(*res)->lock);
  cc_free(res);
}
