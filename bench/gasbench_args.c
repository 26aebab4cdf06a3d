/* gasbench_args.c: cubecg-gasbench's command line: the options and their checks (one clear line
 * naming a bad value). */
#include "gasbench.h"

void usage(void)
{
  printf("cubecg-gasbench: put/get of the global memory store against MPI_Send/Recv and fio\n"
         "  --sizes LIST      transfer sizes (default 4k,64k,1M,4M,16M,64M,256M)\n"
         "  --page LIST       page sizes (default 64k,1M,4M)\n"
         "  --dram SIZE       DRAM page cache per rank (default 320M; rows larger are skipped)\n"
         "  --ssd-dir DIR     the owners' page files (default ./cubecg-gasbench.tmp)\n"
         "  --repeat R        repetitions, median reported (default 5)\n"
         "  --fio             run fio --ioengine=io_uring --direct=1 --rw=read (bs min(size,1M),\n"
         "                    iodepth 4) on --ssd-dir as the SSD anchor (rank 0, fio in PATH):\n"
         "                    one read of the size just before each ssd-miss get (paired), and\n"
         "                    R reads of each size before and after the rows (ssd-stream)\n"
         "  --no-weak         skip the weak-scaling run\n"
         "  --weak-page SIZE  page of the weak-scaling run (default 1M)\n"
         "  --weak-pages N    hot data set in pages (default 32)\n"
         "  --weak-dram SIZE  DRAM per rank in the weak-scaling run (default 8M)\n"
         "  --fallback        allow the uring fallback chain for the page files\n"
         "  --report FILE     JSON report (kind \"gasbench\", docs/report-schema.md)\n");
}

/* A strict decimal integer (no "2x", no "1e3", no overflow): atoi would read "2x" as 2. */
static cc_err parse_count(const char *key, const char *text, int *out)
{
  CC_CHECK(bench_strict_int(text, out), CC_ERR_ARG, "%s '%s': not an integer", key, text);
  return CC_OK;
}

cc_err parse_args(int argc, char **argv, gb_params *p, bool *help)
{
  memset(p, 0, sizeof *p);
  snprintf(p->ssd_dir, sizeof p->ssd_dir, "cubecg-gasbench.tmp");
  CC_CALL(bench_parse_sizes("4k,64k,1M,4M,16M,64M,256M", p->sizes, &p->n_sizes, MAX_LIST));
  CC_CALL(bench_parse_sizes("64k,1M,4M", p->pages, &p->n_pages, MAX_LIST));
  p->dram       = (size_t)320 << 20;
  p->repeat     = 5;
  p->weak       = true;
  p->weak_page  = (size_t)1 << 20;
  p->weak_pages = 32;
  p->weak_dram  = (size_t)8 << 20;
  *help         = false;
  for (int i = 1; i < argc; i++) {
    static const char *const flags[] = {"--help", "--fio", "--no-weak", "--fallback", NULL};
    char key[64], *value;
    CC_CALL(bench_option(argc, argv, &i, flags, key, &value));
    if (!strcmp(key, "--help"))
      *help = true;
    else if (!strcmp(key, "--fio"))
      p->fio = true;
    else if (!strcmp(key, "--no-weak"))
      p->weak = false;
    else if (!strcmp(key, "--fallback"))
      p->fallback = true;
    else if (!strcmp(key, "--sizes"))
      CC_CALL(bench_parse_sizes(value, p->sizes, &p->n_sizes, MAX_LIST));
    else if (!strcmp(key, "--page"))
      CC_CALL(bench_parse_sizes(value, p->pages, &p->n_pages, MAX_LIST));
    else if (!strcmp(key, "--dram"))
      CC_CALL(cc_io_parse_bytes(value, &p->dram));
    else if (!strcmp(key, "--weak-page"))
      CC_CALL(cc_io_parse_bytes(value, &p->weak_page));
    else if (!strcmp(key, "--weak-dram"))
      CC_CALL(cc_io_parse_bytes(value, &p->weak_dram));
    else if (!strcmp(key, "--weak-pages"))
      CC_CALL(parse_count(key, value, &p->weak_pages));
    else if (!strcmp(key, "--ssd-dir")) {
      CC_CHECK(strlen(value) < sizeof p->ssd_dir, CC_ERR_ARG, "--ssd-dir longer than %zu",
               sizeof p->ssd_dir - 1);
      snprintf(p->ssd_dir, sizeof p->ssd_dir, "%s", value);
    } else if (!strcmp(key, "--repeat"))
      CC_CALL(parse_count(key, value, &p->repeat));
    else if (!strcmp(key, "--report"))
      snprintf(p->report, sizeof p->report, "%s", value);
    else
      CC_FAIL(CC_ERR_ARG, "unknown option %s (see --help)", key);
  }
  CC_CHECK(p->repeat >= 1 && p->repeat <= 1000, CC_ERR_ARG, "--repeat %d must be in [1, 1000]",
           p->repeat);
  CC_CHECK(p->weak_pages >= 1, CC_ERR_ARG, "--weak-pages %d must be >= 1", p->weak_pages);
  for (int i = 0; i < p->n_sizes; i++)
    CC_CHECK(p->sizes[i] >= 1 && p->sizes[i] <= ((size_t)1 << 31) - 4096, CC_ERR_ARG,
             "--sizes entry %zu must be in [1, 2 GiB)", p->sizes[i]);
  cc_gas_params gp;
  cc_gas_params_default(&gp);
  gp.dram_bytes = p->dram;
  snprintf(gp.ssd_dir, sizeof gp.ssd_dir, "%s", p->ssd_dir);
  for (int i = 0; i < p->n_pages; i++) { /* bad page sizes / budgets: one line each */
    size_t pg = p->pages[i];
    CC_CHECK(pg >= CC_GAS_MIN_PAGE && (pg & (pg - 1)) == 0, CC_ERR_ARG,
             "--page %zu must be a power of two >= 4096 bytes", pg);
    CC_CHECK(p->dram >= pg, CC_ERR_ARG, "--dram %zu is below one page (--page %zu)", p->dram, pg);
    gp.page_bytes = pg;
    CC_CALL(cc_gas_params_check(&gp));
  }
  gp.page_bytes = p->weak_page;
  gp.dram_bytes = p->weak_dram;
  CC_CALL(cc_gas_params_check(&gp));
  return CC_OK;
}
