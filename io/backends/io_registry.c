/* io_registry.c: the name -> backend registry (PETSc-style table), the backends' names as offered,
 * and the release of an owner's resources through each backend's ops, over the registry. */
#include "io_internal.h"

/* The registry: one line per backend, whose ops table (io_backend_<name>) is defined in its own
 * file. Order matters twice: cc_io_backend_name lists the backends in it, and a backend built over
 * another (offload over posix and uring) comes after it, so that its resources are released first
 * (io_resources_destroy walks the registry backwards). */
#ifdef CUBECG_HAVE_HDF5
#define IO_IF_HDF5(entry) entry
#else
#define IO_IF_HDF5(entry)
#endif
#ifdef CUBECG_HAVE_FORTRAN
#define IO_IF_FORTRAN(entry) entry
#else
#define IO_IF_FORTRAN(entry)
#endif
#define IO_REGISTRY(X)                                                                             \
  X(posix)                                                                                         \
  X(uring)                                                                                         \
  X(offload)                                                                                       \
  IO_IF_HDF5(X(hdf5))                                                                              \
  X(gas)                                                                                           \
  IO_IF_FORTRAN(X(fortran))

#define IO_DECLARE(name) extern const cc_io_backend_ops io_backend_##name;
#define IO_ENTRY(name) &io_backend_##name,
IO_REGISTRY(IO_DECLARE)
static const cc_io_backend_ops *const backend_table[] = {IO_REGISTRY(IO_ENTRY) NULL};
#define IO_N_BACKENDS ((int)(sizeof backend_table / sizeof *backend_table) - 1)
_Static_assert(sizeof backend_table / sizeof *backend_table - 1 <= IO_RESOURCE_SLOTS,
               "io_resources has a slot for every backend of the registry");

const cc_io_backend_ops *cc_io_backend_find(const char *name, cc_io_options *opt)
{
  if (!name) return NULL;
  if (!strncmp(name, "offload", 7)) {
    const char *inner = name[7] == '-' ? name + 8 : name[7] == '\0' ? "posix" : NULL;
    if (!inner || (strcmp(inner, "posix") && strcmp(inner, "uring"))) return NULL;
    if (opt) snprintf(opt->inner, sizeof opt->inner, "%s", inner);
    return &io_backend_offload;
  }
  for (int i = 0; backend_table[i]; i++)
    if (!strcmp(backend_table[i]->name, name)) return backend_table[i];
  return NULL;
}

/* The registry's names in order; the offload engine is offered over each inner backend it takes
 * ("offload" = offload over posix, "offload-uring"). */
const char *cc_io_backend_name(int i)
{
  for (int t = 0; backend_table[t] && i >= 0; t++, i--) {
    if (i == 0) return backend_table[t]->name;
    if (backend_table[t] == &io_backend_offload && --i == 0) return "offload-uring";
  }
  return NULL;
}

const char *cc_io_backend_names(void)
{
  static char names[128]; /* built once from the registry; same text on every call */
  if (!names[0])
    for (int i = 0; cc_io_backend_name(i); i++) {
      size_t used = strlen(names);
      snprintf(names + used, sizeof names - used, "%s%s", i ? "," : "", cc_io_backend_name(i));
    }
  return names;
}

/* ---- resources of one owner: each backend's release entries, over the registry ------------- */
cc_err io_resources_release_collective(io_resources *res)
{
  for (int t = IO_N_BACKENDS - 1; res && t >= 0; t--) {
    void **slot = io_resources_find(res, backend_table[t]);
    if (slot && backend_table[t]->release_collective)
      CC_CALL(backend_table[t]->release_collective(slot));
  }
  return CC_OK;
}

void io_resources_destroy(io_resources **res)
{
  if (!*res) return;
  for (int t = IO_N_BACKENDS - 1; t >= 0; t--) {
    void **slot = io_resources_find(*res, backend_table[t]);
    if (slot && backend_table[t]->release) backend_table[t]->release(slot);
  }
  io_resources_free(res);
}
