/* cc_memory.c: 64-byte aligned allocation (cache line / AVX-512 vector) with overflow checks. */
#include "cc_common.h"

#include <stdlib.h>
#include <sys/resource.h>

cc_err cc_malloc(size_t count, size_t elem_size, void *ptr_out)
{
  void **result = (void **)ptr_out;
  *result       = NULL;
  CC_CHECK(elem_size == 0 || count <= SIZE_MAX / elem_size, CC_ERR_MEM,
           "allocation of %zu x %zu bytes overflows size_t", count, elem_size);
  size_t bytes = count * elem_size;
  if (bytes == 0) bytes = CC_ALIGN;
  bytes   = (bytes + CC_ALIGN - 1) / CC_ALIGN * CC_ALIGN;
  void *p = aligned_alloc(CC_ALIGN, bytes);
  CC_CHECK(p != NULL, CC_ERR_MEM, "cannot allocate %zu bytes", bytes);
  *result = p;
  return CC_OK;
}

cc_err cc_calloc(size_t count, size_t elem_size, void *ptr_out)
{
  CC_CALL(cc_malloc(count, elem_size, ptr_out));
  memset(*(void **)ptr_out, 0, count * elem_size);
  return CC_OK;
}

void cc_free(void *ptr_in)
{
  void **p = (void **)ptr_in;
  free(*p);
  *p = NULL;
}

void cc_free_all(void *const *addresses)
{
  for (int i = 0; addresses[i]; i++) cc_free(addresses[i]);
}

int64_t cc_peak_rss_bytes(void)
{
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return (int64_t)usage.ru_maxrss * 1024; /* Linux reports KiB */
}

static void comm_table_buffers_free(cc_comm_table *t)
{
  cc_free_all((void *[]){&t->halo.send, &t->halo.recv, &t->halo.req, &t->halo.status,
                         &t->halo.direct, NULL});
  t->halo.n_neighbors = t->halo.n_import = t->halo.n_export = 0;
}

cc_err cc_comm_table_buffers(cc_comm_table *t)
{
  comm_table_buffers_free(t);
  const int nb = t->n_neighbors;
  CC_CHECK(nb >= 0, CC_ERR_ARG, "communication table with %d neighbours", nb);
  const int n_import = nb > 0 ? t->import_index[nb] : 0;
  const int n_export = nb > 0 ? t->export_index[nb] : 0;
  CC_CHECK(n_import >= 0 && n_export >= 0, CC_ERR_ARG,
           "communication table with %d import / %d export items", n_import, n_export);
  CC_CALL(cc_malloc(3 * (size_t)n_export + 1, sizeof(double), &t->halo.send));
  CC_CALL(cc_malloc(3 * (size_t)n_import + 1, sizeof(double), &t->halo.recv));
  CC_CALL(cc_malloc(2 * (size_t)nb + 1, sizeof(MPI_Request), &t->halo.req));
  CC_CALL(cc_malloc(2 * (size_t)nb + 1, sizeof(MPI_Status), &t->halo.status));
  CC_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &t->halo.direct));
  t->halo.n_neighbors = nb;
  t->halo.n_import    = n_import;
  t->halo.n_export    = n_export;
  return CC_OK;
}

void cc_comm_table_free(cc_comm_table *table)
{
  comm_table_buffers_free(table);
  cc_free_all((void *[]){&table->neighbor_rank, &table->import_index, &table->import_item,
                         &table->export_index, &table->export_item, NULL});
  table->n_neighbors = 0;
}

void cc_bcrs_free(cc_bcrs *a)
{
  cc_free_all((void *[]){&a->row_ptr, &a->col_idx, &a->val, &a->diag_pos, &a->l_ptr, &a->l_col,
                         &a->l_val, &a->row_class, NULL});
  a->n_interior = 0;
  a->n_rows = a->n_cols = 0;
  a->n_blocks           = 0;
}
