/* ckpt_problem.c: the problem a checkpoint belongs to (mesh, solver, ordering, material, load,
 * preconditioner, as its manifest records them), compared with this run's: a restart and a
 * checkpointer's creation refuse another problem's checkpoints naming the first difference. */
#include "ckpt_internal.h"

#include <stdio.h>

/* The first parameter of meta that differs from manifest m, as "--E 2 differs from the
 * checkpoint's E = 1" in msg; false when every recorded parameter agrees. Parameters the manifest
 * does not hold (older cubecg) are not compared: *unverified says so. */
bool ckpt_problem_differs(const io_manifest *m, const cc_io_metadata *meta, char *msg, size_t n,
                          bool *unverified)
{
  *unverified = false;
  if ((meta->nx || meta->ny || meta->nz) &&
      (m->nx != meta->nx || m->ny != meta->ny || m->nz != meta->nz)) {
    snprintf(msg, n, "the mesh %dx%dx%d differs from the checkpoint's mesh %dx%dx%d", meta->nx,
             meta->ny, meta->nz, m->nx, m->ny, m->nz);
    return true;
  }
  if (meta->solver[0] && strcmp(m->solver, meta->solver)) {
    snprintf(msg, n, "--solver %s differs from the checkpoint's solver = %s", meta->solver,
             m->solver);
    return true;
  }
  if (meta->ordering[0] && strcmp(m->ordering, meta->ordering)) {
    snprintf(msg, n, "--ordering %s differs from the checkpoint's ordering = %s", meta->ordering,
             m->ordering);
    return true;
  }
  if (!meta->has_problem) return false;
  if (!m->has_problem) {
    *unverified = true;
    return false;
  }
  /* doubles are the same parameter bitwise: exact comparison, printed so that they read back */
  const struct {
    const char *option, *key;
    double mine, theirs;
  } real[] = {{"--E", "E", meta->E, m->E},
              {"--nu", "nu", meta->nu, m->nu},
              {"--traction", "traction", meta->traction, m->traction}};
  for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
    if (memcmp(&real[i].mine, &real[i].theirs, sizeof(double))) {
      snprintf(msg, n, "%s %.17g differs from the checkpoint's %s = %.17g", real[i].option,
               real[i].mine, real[i].key, real[i].theirs);
      return true;
    }
  if (strcmp(m->precond, meta->precond)) {
    const bool precision = strchr(meta->precond, '+') || strchr(m->precond, '+');
    snprintf(msg, n, "%s %s differs from the checkpoint's precond = %s",
             precision ? "--precond/--precond-precision" : "--precond", meta->precond, m->precond);
    return true;
  }
  if (m->colors != meta->colors) {
    snprintf(msg, n, "--colors %d differs from the checkpoint's colors = %d", meta->colors,
             m->colors);
    return true;
  }
  if (m->asdd_iters != meta->asdd_iters) {
    snprintf(msg, n, "--asdd-iters %d differs from the checkpoint's asdd_iterations = %d",
             meta->asdd_iters, m->asdd_iters);
    return true;
  }
  if (strcmp(m->asdd_residual, meta->asdd_residual)) {
    snprintf(msg, n, "--asdd-residual %s differs from the checkpoint's asdd_residual = %s",
             meta->asdd_residual[0] ? meta->asdd_residual : "(none)",
             m->asdd_residual[0] ? m->asdd_residual : "(none)");
    return true;
  }
  return false;
}

/* The problem of checkpoint dir/ckpt.<iteration>, compared with meta: the first difference in
 * differs ("" when of this problem; "ckpt.<n>/manifest.json cannot be read" when unreadable). An
 * unverifiable checkpoint (written before the problem was recorded) is named on stderr when
 * report. */
void ckpt_problem_of(const char *dir, int iteration, const cc_io_metadata *meta, bool report,
                     char *differs, size_t n)
{
  char name[IO_NAME_MAX];
  ckpt_name(name, sizeof name, iteration, false);
  io_manifest m;
  bool unverified = false;
  if (ckpt_read_manifest(dir, name, &m)) {
    snprintf(differs, n, "%.40s/" CKPT_MANIFEST " cannot be read", name);
    cc_error_clear();
    return;
  }
  if (!ckpt_problem_differs(&m, meta, differs, n, &unverified)) differs[0] = '\0';
  io_manifest_free(&m);
  if (unverified && report)
    fprintf(stderr,
            "cubecg: warning: %s/%s was written without E, nu, traction and preconditioner: "
            "they cannot be verified; its checkpoints are taken as this problem's\n",
            dir, name);
}
