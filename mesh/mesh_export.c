/* mesh_export.c: write the assembled global matrix in Matrix Market coordinate format (1-based,
 * global DOF 3*g + c). Rank 0 gathers (row, col, value) triplets, keeps only values != 0.0 exactly
 * and sorts by (row, col), so the file does not depend on the partition. A vector over the DOFs
 * (the right-hand side) goes the same way into a Matrix Market array file, every entry written.
 */
#include "mesh_internal.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct {
  int64_t row, col;
  double val;
} triplet;

static int triplet_compare(const void *pa, const void *pb)
{
  const triplet *a = pa, *b = pb;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->col > b->col) - (a->col < b->col);
}

static cc_err triplet_type(MPI_Datatype *type)
{
  int lengths[3]        = {1, 1, 1};
  MPI_Aint disp[3]      = {offsetof(triplet, row), offsetof(triplet, col), offsetof(triplet, val)};
  MPI_Datatype types[3] = {MPI_INT64_T, MPI_INT64_T, MPI_DOUBLE}, tmp;
  CC_MPI(MPI_Type_create_struct(3, lengths, disp, types, &tmp));
  CC_MPI(MPI_Type_create_resized(tmp, 0, sizeof(triplet), type));
  CC_MPI(MPI_Type_free(&tmp));
  CC_MPI(MPI_Type_commit(type));
  return CC_OK;
}

/* array: a column vector (n_dof x 1, the values in row order: every row once); otherwise the
 * coordinate triplets of an n_dof x n_dof matrix */
static cc_err write_entries(FILE *f, const char *path, int64_t n_dof, const triplet *t, int64_t n,
                            int array)
{
  if (array)
    CC_CHECK(fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)n_dof) >=
                 0,
             CC_ERR_SYS, "writing the header of %s: %s", path, strerror(errno));
  else
    CC_CHECK(fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
                     (long long)n_dof, (long long)n_dof, (long long)n) >= 0,
             CC_ERR_SYS, "writing the header of %s: %s", path, strerror(errno));
  for (int64_t e = 0; e < n; e++)
    CC_CHECK((array ? fprintf(f, "%.17g\n", t[e].val)
                    : fprintf(f, "%lld %lld %.17g\n", (long long)t[e].row + 1,
                              (long long)t[e].col + 1, t[e].val)) >= 0,
             CC_ERR_SYS, "writing entry %lld of %s: %s", (long long)e, path, strerror(errno));
  return CC_OK;
}

/* Rank 0: sort and write; returns the error of the write or of fclose. */
static cc_err write_file(const char *path, int64_t n_dof, triplet *all, int64_t n, int array)
{
  qsort(all, (size_t)n, sizeof(triplet), triplet_compare);
  for (int64_t e = 0; array && e < n;
       e++) /* every row once: a partition that lost or doubled one */
    CC_CHECK(all[e].row == e, CC_ERR_ARG, "%s: row %lld of %lld gathered as %lld", path,
             (long long)e, (long long)n_dof, (long long)all[e].row);
  CC_CHECK(!array || n == n_dof, CC_ERR_ARG, "%s: %lld rows gathered for %lld DOFs", path,
           (long long)n, (long long)n_dof);
  FILE *f = fopen(path, "w");
  CC_CHECK(f != NULL, CC_ERR_SYS, "cannot open %s for writing: %s", path, strerror(errno));
  cc_err err = write_entries(f, path, n_dof, all, n, array);
  int rc     = fclose(f);
  CC_CALL(err);
  CC_CHECK(rc == 0, CC_ERR_SYS, "closing %s: %s", path, strerror(errno));
  return CC_OK;
}

/* Gather every rank's n_local triplets `mine` (freed here) on rank 0, which writes them
 * (collective). */
static cc_err gather_write(const cc_mesh *mesh, triplet *mine, int64_t n_local, const char *path,
                           int array)
{
  const cc_comm_table *ct = &mesh->comm;
  int count = (int)n_local, *counts = NULL, *displs = NULL;
  triplet *all  = NULL;
  int64_t total = 0;
  cc_err local  = CC_OK, global;
  if (ct->rank == 0) {
    local = cc_malloc((size_t)ct->size, sizeof(int), &counts);
    if (!local) local = cc_malloc((size_t)ct->size, sizeof(int), &displs);
  }
  CC_CALL(cc_error_agree(ct->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "rank 0 could not allocate the gather of %s", path);
  CC_MPI(MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, ct->comm));
  if (ct->rank == 0) {
    for (int r = 0; r < ct->size; r++) displs[r] = (int)total, total += counts[r];
    local = total < INT32_MAX ? CC_OK
                              : cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                                              "%lld matrix entries too many to gather for %s",
                                              (long long)total, path);
    if (!local) local = cc_malloc((size_t)total, sizeof(triplet), &all);
  }
  CC_CALL(cc_error_agree(ct->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "rank 0 cannot gather the matrix for %s", path);

  MPI_Datatype type;
  CC_CALL(triplet_type(&type));
  CC_MPI(MPI_Gatherv(mine, count, type, all, counts, displs, type, 0, ct->comm));
  CC_MPI(MPI_Type_free(&type));
  cc_free(&mine);
  if (ct->rank == 0) local = write_file(path, 3 * mesh->n_global_nodes, all, total, array);
  cc_free(&all);
  cc_free(&counts);
  cc_free(&displs);
  CC_CALL(cc_error_agree(ct->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "rank 0 failed to write %s", path);
  return CC_OK;
}

cc_err cc_mesh_export_matrix(const cc_mesh *mesh, const cc_bcrs *a, const char *path)
{
  const cc_comm_table *ct = &mesh->comm;
  int64_t n_local         = 0;
  for (int64_t t = 0; t < 9 * a->n_blocks; t++) n_local += a->val[t] != 0.0;
  CC_CHECK(n_local < INT32_MAX, CC_ERR_ARG, "rank %d: %lld entries too many to gather", ct->rank,
           (long long)n_local);
  triplet *mine;
  CC_CALL(cc_malloc((size_t)n_local, sizeof(triplet), &mine));
  int64_t e = 0;
  for (int v = 0; v < a->n_rows; v++)
    for (int64_t t = a->row_ptr[v]; t < a->row_ptr[v + 1]; t++)
      for (int q = 0; q < 9; q++)
        if (a->val[9 * t + q] != 0.0)
          mine[e++] = (triplet){3 * mesh->global_id[v] + q / 3,
                                3 * mesh->global_id[a->col_idx[t]] + q % 3, a->val[9 * t + q]};
  return gather_write(mesh, mine, n_local, path, 0);
}

cc_err cc_mesh_export_vector(const cc_mesh *mesh, const double *x, const char *path)
{
  const int64_t n_local = 3 * (int64_t)mesh->n_internal;
  triplet *mine;
  CC_CALL(cc_malloc((size_t)n_local, sizeof(triplet), &mine));
  for (int64_t i = 0; i < n_local; i++)
    mine[i] = (triplet){3 * mesh->global_id[i / 3] + i % 3, 0, x[i]};
  return gather_write(mesh, mine, n_local, path, 1);
}
