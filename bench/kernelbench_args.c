/* kernelbench_args.c: cubecg-bench's command line (kernelbench.h) */
#include "kernelbench.h"

void bench_usage(void)
{
  printf(
      "cubecg-bench: solver kernels vs STREAM triad; a triad before every repetition,\n"
      "  %% of STREAM = median of the per-repetition ratios\n"
      "  --nx N --ny N --nz N     nodes per direction (default: the smallest 2^k cube, k >= 5,\n"
      "                           whose matrix is >= 4x the last-level cache of the nodes)\n"
      "  --partition box|metis    (default box)\n"
      "  --ordering KIND          natural, rcm, mc, cm-rcm (default cm-rcm)\n"
      "  --colors K               colors for mc, cm-rcm (default 10)\n"
      "  --asdd-iters N           ASDD iterations (default 2)\n"
      "  --asdd-residual fused|full  ASDD's residual fused into the next forward sweep or in\n"
      "                           a pass of its own, as cubecg's option (default fused)\n"
      "  --level-order on|off     cm-rcm: rows level by level where the order is free, as the\n"
      "                           driver's --level-order (default on)\n"
      "  --repeat R               timed runs per kernel, each after a triad (default 20)\n"
      "  --stream-mb M            MiB of the three triad arrays over all ranks (default: 4 x LLC\n"
      "                           per node, at most half of MemAvailable)\n"
      "  --allow-cached [0|1]     run a mesh whose matrix is below 4x the last-level cache (else\n"
      "                           refused, exit 2): fractions of STREAM then overstate DRAM use\n"
      "  --model-stream [0|1]     also each kernel against a stream of exactly its modelled bytes\n"
      "                           over its own arrays (model_stream.h): real / stream > 1 is time\n"
      "                           the bytes do not force; needs a multicolor ordering\n"
      "  --anatomy [0|1]          also SpMV against variants that each take one cost out (the\n"
      "                           gathers of x, the row order; spmv_anatomy.h), interleaved\n"
      "  --triad-placement N      instead of the kernels: the triad on N sets of arrays (2..16)\n"
      "                           allocated one after another, timed in rotating rounds "
      "(--repeat):\n"
      "                           does the triad's bandwidth depend on where its pages lie?\n"
      "  --read-streams N         instead of the kernels: the triad's first array read as 1..N\n"
      "                           (2..8) interleaved streams per core against the triad, in\n"
      "                           rotating rounds (--repeat): does a core read faster with\n"
      "                           more streams at once?\n"
      "  --block-ceilings [0|1]   instead of the kernels: each precision's sweep kernel on a\n"
      "                           core's few blocks held in L1, in rotating rounds (--repeat),\n"
      "                           against the triad: below 1, the kernel cannot keep pace with\n"
      "                           the memory here, whatever the memory does\n"
      "  --overlap [0|1]          instead of the kernels: IMB-NBC's overlap of the solvers'\n"
      "                           reductions (1, 2, 3, 31 doubles) with one SpMV + ASDD, under\n"
      "                           progress none and poll (thread + each when the library's\n"
      "                           thread runs in this launch); --repeat rounds; default mesh\n"
      "                           32^3 (the default job's), no cache rule\n"
      "  --report FILE            JSON report (kind \"kernels\", \"triad_placement\",\n"
      "                           \"read_streams\", \"block_ceilings\" or \"overlap\")\n");
}

static cc_err parse_int(const char *key, const char *val, int lo, int *out)
{
  char *end;
  long v = strtol(val, &end, 10);
  CC_CHECK(*val && !*end && v >= lo && v <= 1 << 30, CC_ERR_ARG,
           "--%s %s: expected an integer >= %d", key, val, lo);
  *out = (int)v;
  return CC_OK;
}

/* The flags --allow-cached, --anatomy, --model-stream, --block-ceilings and --overlap by name
 * (without the dashes); NULL for another option. */
static int *flag_of(bench_opts *o, const char *name)
{
  return !strcmp(name, "anatomy")          ? &o->anatomy
         : !strcmp(name, "model-stream")   ? &o->model_stream
         : !strcmp(name, "block-ceilings") ? &o->block_ceilings
         : !strcmp(name, "overlap")        ? &o->overlap
         : !strcmp(name, "allow-cached")   ? &o->allow_cached
                                           : NULL;
}

/* The options that take a count (mesh, colors, iterations, repetitions, sets, streams); *known = 0
 * for another option. */
static cc_err parse_count_option(const char *key, const char *val, bench_opts *o, int *known)
{
  *known = 1;
  if (!strcmp(key, "nx"))
    CC_CALL(parse_int(key, val, 2, &o->mesh.nx));
  else if (!strcmp(key, "ny"))
    CC_CALL(parse_int(key, val, 2, &o->mesh.ny));
  else if (!strcmp(key, "nz"))
    CC_CALL(parse_int(key, val, 2, &o->mesh.nz));
  else if (!strcmp(key, "colors"))
    CC_CALL(parse_int(key, val, 2, &o->colors));
  else if (!strcmp(key, "asdd-iters"))
    CC_CALL(parse_int(key, val, 1, &o->asdd_iters));
  else if (!strcmp(key, "repeat"))
    CC_CALL(parse_int(key, val, 1, &o->repeat));
  else if (!strcmp(key, "triad-placement")) {
    CC_CALL(parse_int(key, val, 2, &o->placement));
    CC_CHECK(o->placement <= TRIAD_PLACEMENT_MAX_SETS, CC_ERR_ARG,
             "--triad-placement %s: expected 2 to %d sets", val, TRIAD_PLACEMENT_MAX_SETS);
  } else if (!strcmp(key, "read-streams")) {
    CC_CALL(parse_int(key, val, 2, &o->read_streams));
    CC_CHECK(o->read_streams <= READ_STREAMS_MAX, CC_ERR_ARG,
             "--read-streams %s: expected 2 to %d streams", val, READ_STREAMS_MAX);
  } else
    *known = 0;
  return CC_OK;
}

/* One --key value (or --key=value) option. */
static cc_err parse_option(const char *key, const char *val, bench_opts *o)
{
  int known, *flag = flag_of(o, key);
  CC_CALL(parse_count_option(key, val, o, &known));
  if (known) return CC_OK;
  if (!strcmp(key, "asdd-residual")) {
    CC_CHECK(!strcmp(val, "fused") || !strcmp(val, "full"), CC_ERR_ARG,
             "--asdd-residual %s: expected fused or full", val);
    o->asdd_full_residual = !strcmp(val, "full");
  } else if (!strcmp(key, "ordering")) {
    CC_CHECK(strlen(val) < sizeof o->ordering, CC_ERR_ARG, "--ordering %s: unknown", val);
    snprintf(o->ordering, sizeof o->ordering, "%s", val);
  } else if (!strcmp(key, "partition")) {
    CC_CHECK(!strcmp(val, "box") || !strcmp(val, "metis"), CC_ERR_ARG,
             "--partition %s: expected box or metis", val);
    o->mesh.partition = strcmp(val, "box") ? CC_PARTITION_METIS : CC_PARTITION_BOX;
  } else if (!strcmp(key, "stream-mb")) {
    char *end;
    o->stream_mb = strtod(val, &end);
    CC_CHECK(*val && !*end && o->stream_mb >= 1, CC_ERR_ARG, "--stream-mb %s: expected >= 1", val);
  } else if (!strcmp(key, "report"))
    o->report = val;
  else if (!strcmp(key, "level-order")) {
    CC_CHECK(!strcmp(val, "on") || !strcmp(val, "off"), CC_ERR_ARG,
             "--level-order %s: expected on or off", val);
    o->level_order = !strcmp(val, "on");
  } else if (flag) {
    CC_CHECK(!strcmp(val, "0") || !strcmp(val, "1"), CC_ERR_ARG, "--%s %s: expected 0 or 1", key,
             val);
    *flag = val[0] == '1';
  } else
    CC_FAIL(CC_ERR_ARG, "unknown option --%s (see --help)", key);
  return CC_OK;
}

/* The defaults: the mesh sized later (bench_default_mesh), cubecg's preconditioner settings. */
static void bench_defaults(bench_opts *o)
{
  cc_mesh_params_default(&o->mesh);
  o->mesh.nx = o->mesh.ny = o->mesh.nz = 0; /* auto, set by bench_default_mesh */
  o->allow_cached = o->anatomy = o->model_stream = o->placement = 0;
  o->read_streams = o->block_ceilings = o->overlap = 0;
  snprintf(o->ordering, sizeof o->ordering, "cm-rcm");
  o->level_order = 1, o->colors = 10, o->asdd_iters = 2, o->repeat = 20;
  o->stream_mb = 0, o->report = NULL;
  o->asdd_full_residual = 0; /* fused, as cubecg's default */
}

/* --key value or --key=value; returns 1 in *help for --help */
cc_err bench_parse(int argc, char **argv, bench_opts *o, int *help)
{
  bench_defaults(o);
  *help = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *val = NULL, *eq;
    char key[32];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      *help = 1;
      return CC_OK;
    }
    CC_CHECK(!strncmp(arg, "--", 2), CC_ERR_ARG, "unexpected argument '%s'", arg);
    int *flag = flag_of(o, arg + 2);
    if (flag) { /* a flag, with an optional 0 or 1 after it */
      *flag = 1;
      if (i + 1 < argc && (!strcmp(argv[i + 1], "0") || !strcmp(argv[i + 1], "1")))
        *flag = argv[++i][0] == '1';
      continue;
    }
    if ((eq = strchr(arg, '='))) {
      snprintf(key, sizeof key, "%.*s", (int)(eq - arg - 2), arg + 2);
      val = eq + 1;
    } else {
      snprintf(key, sizeof key, "%s", arg + 2);
      CC_CHECK(i + 1 < argc, CC_ERR_ARG, "option --%s needs a value", key);
      val = argv[++i];
    }
    CC_CALL(parse_option(key, val, o));
  }
  CC_CHECK(!o->anatomy || bench_anatomy_available(), CC_ERR_ARG,
           "--anatomy: this build has no AVX2 + FMA kernels (CC_BLOCK3_SIMD), which the variants "
           "copy; build with -march=native or x86-64-v3");
  for (int k = 0; o->model_stream && cc_ordering_list[k].name; k++)
    CC_CHECK(strcmp(cc_ordering_list[k].name, o->ordering) || cc_ordering_list[k].needs_colors,
             CC_ERR_ARG,
             "--model-stream with --ordering %s: its sequential sweeps read copies of L and U the "
             "streams do not model; use a multicolor ordering (mc, cm-rcm)",
             o->ordering);
  CC_CHECK(
      (o->read_streams > 0) + (o->placement > 0) + (o->block_ceilings > 0) + (o->overlap > 0) <= 1,
      CC_ERR_ARG,
      "--overlap %d, --read-streams %d, --triad-placement %d, --block-ceilings %d: each "
      "replaces the kernels; give one",
      o->overlap, o->read_streams, o->placement, o->block_ceilings);
  o->mesh_auto = o->mesh.nx == 0 && o->mesh.ny == 0 && o->mesh.nz == 0;
  if (o->overlap && o->mesh_auto) { /* a latency measurement: the default job's mesh */
    o->mesh.nx = o->mesh.ny = o->mesh.nz = 32;
    o->mesh_auto                         = 0;
  }
  CC_CHECK(o->mesh_auto || (o->mesh.nx && o->mesh.ny && o->mesh.nz), CC_ERR_ARG,
           "give all of --nx, --ny, --nz or none (the default DRAM-sized cube)");
  return CC_OK;
}
