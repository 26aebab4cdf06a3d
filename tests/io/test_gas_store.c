/* test_gas_store.c: the global memory store. Modes:
 *   basic DIR    every rank puts its home pages (blocking + nb, a partial last page), every rank
 *                reads every home back (DRAM hits and, with a 4-page DRAM budget, SSD misses after
 *                eviction); a re-put is seen by later gets; owners sit on another node when there
 *                are two; the drain leaves each owner's page file with the recorded CRCs
 *   coop DIR     (>= 3 ranks) a copy cached by one rank serves another after the owner evicted it
 *   race DIR     rounds of gets each followed at once by a collective eviction (no pin left)
 *   corrupt DIR  a page flipped in the owner's DRAM is refused naming page and owner
 *   exact DIR    put then get of pages (2 MiB: 4 parts on the wire across nodes) ending inside a
 *                page and inside a part: the exact bytes come back, from DRAM and from the SSD,
 *                nothing past them is written, the owner's directory holds the CRC32C of exactly
 *                those bytes; a byte flipped in a page its owner has just read from the SSD is
 *                refused
 *   errors DIR   page size / DRAM budget / O_DIRECT refused / capacity: clear errors */
#include "cc_gas.h"
#include "cc_io.h"
#include "cc_test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 16384

static int rank, size;

static unsigned char pattern(int64_t byte, int version) /* of the segment's byte offset */
{
  uint64_t x = (uint64_t)byte * 0x9E3779B97F4A7C15ull + (uint64_t)version * 7919u;
  return (unsigned char)(x >> 56);
}

static void fill(unsigned char *buf, int64_t offset, size_t n, int version)
{
  for (size_t i = 0; i < n; i++) buf[i] = pattern(offset + (int64_t)i, version);
}

static int mismatches(const unsigned char *buf, int64_t offset, size_t n, int version)
{
  int bad = 0;
  for (size_t i = 0; i < n; i++) bad += buf[i] != pattern(offset + (int64_t)i, version);
  return bad;
}

static void params(const char *dir, size_t dram_pages, bool coop, cc_gas_params *p)
{
  cc_gas_params_default(p);
  p->page_bytes = PAGE;
  p->dram_bytes = dram_pages * PAGE;
  p->coop       = coop;
  p->durable    = false;
  snprintf(p->ssd_dir, sizeof p->ssd_dir, "%s", dir);
}

static int64_t sum64(int64_t v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

static void test_basic(const char *dir)
{
  const int64_t P = 6;               /* pages per home */
  const size_t n  = 5 * PAGE + 1000; /* a partial last page */
  cc_gas_params p;
  params(dir, 4, false, &p); /* 4 slots: owners evict to the SSD */
  p.keep_files = true;
  cc_gas *gas;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, P, &gas));
  int nodes = cc_gas_n_nodes(gas);
  for (int r = 0; r < size; r++) {
    int o = cc_gas_partner(gas, r);
    if (nodes >= 2)
      TEST_EXPECT(cc_gas_node(gas, o) != cc_gas_node(gas, r),
                  "%d nodes, but rank %d's pages are owned by rank %d on the same node", nodes, r,
                  o);
    else if (size > 1)
      TEST_EXPECT(o != r, "rank %d owns its own pages with %d ranks", r, size);
  }
  if (rank == 0) printf("basic: %d ranks on %d nodes\n", size, nodes);
  unsigned char *buf = malloc(P * PAGE), *got = malloc(P * PAGE);
  int64_t home = (int64_t)rank * P * PAGE;
  /* blocking put of the first 3 pages, non-blocking of the rest (two handles outstanding) */
  fill(buf, home, n, 1);
  TEST_CALL(cc_gas_put(gas, home, buf, 3 * PAGE));
  cc_gas_handle *h1, *h2;
  TEST_CALL(cc_gas_put_nb(gas, home + 3 * PAGE, buf + 3 * PAGE, PAGE, &h1));
  TEST_CALL(cc_gas_put_nb(gas, home + 4 * PAGE, buf + 4 * PAGE, n - 4 * PAGE, &h2));
  TEST_CALL(cc_gas_wait(gas, &h2));
  TEST_CALL(cc_gas_wait(gas, &h1));
  TEST_EXPECT(h1 == NULL && h2 == NULL, "wait did not clear the handles");
  TEST_CALL(cc_gas_barrier(gas));
  /* every rank reads every home */
  for (int k = 0; k < size; k++) {
    int r          = (rank + k) % size;
    int64_t offset = (int64_t)r * P * PAGE;
    memset(got, 0, n);
    if (k % 2) {
      TEST_CALL(cc_gas_get(gas, offset, got, n));
    } else {
      cc_gas_handle *h;
      TEST_CALL(cc_gas_get_nb(gas, offset, got, n, &h));
      TEST_CALL(cc_gas_wait(gas, &h));
    }
    int bad = mismatches(got, offset, n, 1);
    TEST_EXPECT(bad == 0, "home %d read back with %d wrong bytes", r, bad);
  }
  /* a short get of a full page (through the page's CRC check) */
  memset(got, 0, PAGE);
  TEST_CALL(cc_gas_get(gas, home, got, 100));
  TEST_EXPECT(mismatches(got, home, 100, 1) == 0, "short get of page 0 wrong");
  TEST_CALL(cc_gas_barrier(gas));
  /* a new version of page 1 of every home: later gets see it */
  fill(buf, home + PAGE, PAGE, 2);
  TEST_CALL(cc_gas_put(gas, home + PAGE, buf, PAGE));
  TEST_CALL(cc_gas_barrier(gas));
  int left = (rank + size - 1) % size;
  TEST_CALL(cc_gas_get(gas, (int64_t)left * P * PAGE + PAGE, got, PAGE));
  TEST_EXPECT(mismatches(got, (int64_t)left * P * PAGE + PAGE, PAGE, 2) == 0,
              "re-put page of home %d not seen", left);
  /* page 5 holds 1000 bytes: a full-page get asks for more than it holds */
  cc_err err = cc_gas_get(gas, home + 5 * PAGE, got, PAGE);
  TEST_EXPECT(err != CC_OK && strstr(cc_error_message(), "holds 1000 bytes"),
              "over-long get accepted: %s", cc_error_message());
  cc_error_clear();
  TEST_CALL(cc_gas_barrier(gas));
  cc_gas_stats st;
  cc_gas_get_stats(gas, &st);
  int64_t evictions = sum64(st.evictions), misses = sum64(st.ssd_misses);
  int64_t hits = sum64(st.dram_hits), written = sum64(st.ssd_bytes_written);
  if (rank == 0)
    printf("basic: dram hits %lld, ssd misses %lld, evictions %lld, ssd path %s\n", (long long)hits,
           (long long)misses, (long long)evictions, st.ssd_path_used);
  if (size > 1) {
    TEST_EXPECT(evictions > 0 && written > 0, "4 DRAM slots but nothing evicted");
    TEST_EXPECT(misses > 0, "no get was an SSD miss");
  }
  TEST_EXPECT(hits > 0, "no get was a DRAM hit");
  /* the drain: every owner's file holds its pages with the directory's CRCs */
  TEST_CALL(cc_gas_drain(gas));
  int64_t owned_checked = 0;
  char name[64], path[1200];
  cc_gas_file_name(rank, name, sizeof name);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  for (int64_t g = 0; g < size * P; g++) {
    uint32_t crc;
    size_t len;
    if (!cc_gas_page_crc(gas, g, &crc, &len)) continue;
    TEST_EXPECT(f != NULL, "owner file %s missing", path);
    if (!f) break;
    fseek(f, cc_gas_ssd_offset(gas, g), SEEK_SET);
    size_t rd = fread(got, 1, len, f);
    TEST_EXPECT(rd == len && cc_io_crc32c(0, got, len) == crc,
                "page %lld in %s does not match its CRC after the drain", (long long)g, path);
    owned_checked++;
  }
  if (f) fclose(f);
  TEST_EXPECT(sum64(owned_checked) == size * P, "%lld pages checked, %lld written",
              (long long)sum64(owned_checked), (long long)(size * P));
  TEST_CALL(cc_gas_destroy(&gas));
  free(buf);
  free(got);
}

static void test_coop(const char *dir)
{
  if (size < 3) {
    if (rank == 0) printf("coop: needs >= 3 ranks, skipped\n");
    return;
  }
  cc_gas_params p;
  params(dir, 8, true, &p);
  cc_gas *gas;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, 2, &gas));
  unsigned char buf[PAGE], got[PAGE];
  int64_t page0 = 0; /* home 0's first page */
  int owner = cc_gas_owner(gas, page0), first = -1, second = -1;
  for (int r = 0; r < size; r++)
    if (r != owner) {
      if (first < 0)
        first = r;
      else if (second < 0)
        second = r;
    }
  if (rank == 0) {
    fill(buf, 0, PAGE, 3);
    TEST_CALL(cc_gas_put(gas, 0, buf, PAGE));
  }
  TEST_CALL(cc_gas_barrier(gas));
  if (rank == first) TEST_CALL(cc_gas_get(gas, 0, got, PAGE)); /* caches a copy */
  TEST_CALL(cc_gas_evict_all(gas, true));                      /* the owner's DRAM is empty */
  cc_gas_reset_stats(gas);
  if (rank == second) {
    memset(got, 0, PAGE);
    TEST_CALL(cc_gas_get(gas, 0, got, PAGE));
    TEST_EXPECT(mismatches(got, 0, PAGE, 3) == 0, "cooperative copy wrong");
    cc_gas_stats st;
    cc_gas_get_stats(gas, &st);
    TEST_EXPECT(st.coop_hits == 1 && st.ssd_misses == 0,
                "rank %d: coop hits %lld, ssd misses %lld (owner %d, copy on %d)", rank,
                (long long)st.coop_hits, (long long)st.ssd_misses, owner, first);
  }
  TEST_CALL(cc_gas_barrier(gas));
  /* a new version invalidates the copies: the next get comes from the owner */
  if (rank == 0) {
    fill(buf, 0, PAGE, 4);
    TEST_CALL(cc_gas_put(gas, 0, buf, PAGE));
  }
  TEST_CALL(cc_gas_barrier(gas));
  TEST_CALL(cc_gas_get(gas, 0, got, PAGE));
  TEST_EXPECT(mismatches(got, 0, PAGE, 4) == 0, "stale cooperative copy served after a re-put");
  TEST_CALL(cc_gas_destroy(&gas));
}

/* Rounds of gets followed at once by a collective eviction: a done message still in flight when
 * the barrier completed left a page pinned ("still pinned at eviction", found by the benchmark). */
static void test_evict_race(const char *dir)
{
  const int P = 8, rounds = 60;
  cc_gas_params p;
  params(dir, 32, false, &p); /* every get is served (and pinned) by the owner */
  cc_gas *gas;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, P, &gas));
  unsigned char *buf = malloc(P * PAGE), *got = malloc(P * PAGE);
  if (rank == 0) {
    fill(buf, 0, P * PAGE, 6);
    TEST_CALL(cc_gas_put(gas, 0, buf, P * PAGE));
  }
  TEST_CALL(cc_gas_barrier(gas));
  int helper = size >= 3 ? 2 : size - 1;
  for (int r = 0; r < rounds; r++) {
    if (r % 2) TEST_CALL(cc_gas_evict_all(gas, false)); /* odd rounds: from the SSD */
    if (rank == helper) TEST_CALL(cc_gas_get(gas, 0, got, P * PAGE));
    TEST_CALL(cc_gas_evict_all(gas, true));
    memset(got, 0, P * PAGE);
    TEST_CALL(cc_gas_get(gas, 0, got, P * PAGE)); /* every rank */
    TEST_EXPECT(mismatches(got, 0, P * PAGE, 6) == 0, "round %d: wrong data", r);
    TEST_CALL(cc_gas_evict_all(gas, true)); /* right after the gets: their done messages */
  }
  TEST_CALL(cc_gas_destroy(&gas));
  free(buf);
  free(got);
}

static void test_corrupt(const char *dir)
{
  if (size < 2) {
    if (rank == 0) printf("corrupt: needs >= 2 ranks, skipped\n");
    return;
  }
  cc_gas_params p;
  params(dir, 4, false, &p);
  cc_gas *gas;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, 2, &gas));
  unsigned char buf[2 * PAGE];
  fill(buf, (int64_t)rank * 2 * PAGE, 2 * PAGE, 5);
  TEST_CALL(cc_gas_put(gas, (int64_t)rank * 2 * PAGE, buf, 2 * PAGE));
  /* before the barrier: an owner may serve a get while still inside it */
  cc_io_set_inject("gas-corrupt");
  TEST_CALL(cc_gas_barrier(gas));
  /* the first page of the left neighbour's home and the second of this rank's own: on 2 nodes of
   * one rank each, the first is owned by this rank (checked where it is copied), the second by the
   * other node (checked by the owner while it sends the page). No page is served twice: the seam
   * flips the same byte at every serve, a second flip would undo the first */
  int pages[2] = {2 * ((rank + size - 1) % size), 2 * rank + 1};
  for (int k = 0; k < 2; k++) {
    cc_err err = cc_gas_get(gas, (int64_t)pages[k] * PAGE, buf, PAGE);
    char want[96];
    snprintf(want, sizeof want, "page %d from owner %d is corrupt", pages[k],
             cc_gas_owner(gas, pages[k]));
    TEST_EXPECT(err != CC_OK && strstr(cc_error_message(), want), "corrupt page: '%s', wanted '%s'",
                err ? cc_error_message() : "accepted", want);
    if (rank == 0 && err) printf("corrupt: %s\n", cc_error_message());
    cc_error_clear();
  }
  TEST_CALL(cc_gas_barrier(gas)); /* every owner has served its get */
  cc_io_set_inject(NULL);
  TEST_CALL(cc_gas_destroy(&gas));
}

/* Every home page i holds exact_len[i] bytes: inside the first 4 KiB, one whole part of a page sent
 * as messages (EXACT_PAGE / 4), one byte more, inside the last part, one byte short, a whole page.
 * The pages are large enough to go in parts (io/backends/gas/gas_internal.h: GAS_WIRE_MIN_PART). */
#define EXACT_PAGE ((size_t)2 << 20)
#define EXACT_PART (EXACT_PAGE / 4)
static const size_t exact_len[] = {1000,           EXACT_PART, EXACT_PART + 1, 3 * EXACT_PART + 5,
                                   EXACT_PAGE - 1, EXACT_PAGE};
#define EXACT_P ((int64_t)(sizeof exact_len / sizeof exact_len[0]))

/* Every rank reads every page back; bytes past the page's length stay as they were. */
static void exact_read_all(cc_gas *gas, unsigned char *got, const char *from)
{
  for (int k = 0; k < size; k++)
    for (int64_t i = 0; i < EXACT_P; i++) {
      int64_t offset = (((rank + k) % size) * EXACT_P + i) * (int64_t)EXACT_PAGE;
      size_t n       = exact_len[i];
      memset(got, 0xee, EXACT_PAGE + 1);
      TEST_CALL(cc_gas_get(gas, offset, got, n));
      int bad = mismatches(got, offset, n, 7), past = 0;
      for (size_t b = n; b <= EXACT_PAGE; b++) past += got[b] != 0xee;
      TEST_EXPECT(bad == 0 && past == 0, "%s: page %lld (%zu bytes): %d wrong, %d written past it",
                  from, (long long)(offset / (int64_t)EXACT_PAGE), n, bad, past);
    }
}

/* The owner's directory: the length and CRC32C of exactly the bytes put. */
static void exact_check_directory(cc_gas *gas, unsigned char *buf)
{
  for (int64_t g = 0; g < size * EXACT_P; g++) {
    uint32_t crc;
    size_t len;
    if (!cc_gas_page_crc(gas, g, &crc, &len)) continue;
    size_t n = exact_len[g % EXACT_P];
    fill(buf, g * (int64_t)EXACT_PAGE, n, 7);
    TEST_EXPECT(len == n && crc == cc_io_crc32c(0, buf, n),
                "page %lld: the directory says %zu bytes, CRC32C %08x; %zu were put, CRC32C %08x",
                (long long)g, len, crc, n, cc_io_crc32c(0, buf, n));
  }
}

static void test_exact(const char *dir)
{
  cc_gas_params p;
  params(dir, 2 * EXACT_P, false, &p);
  p.page_bytes = EXACT_PAGE;
  p.dram_bytes = 2 * EXACT_P * EXACT_PAGE;
  cc_gas *gas;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, EXACT_P, &gas));
  unsigned char *buf = malloc(EXACT_PAGE + 1), *got = malloc(EXACT_PAGE + 1);
  for (int64_t i = 0; i < EXACT_P; i++) { /* one put per page: each ends where its length says */
    int64_t offset = ((int64_t)rank * EXACT_P + i) * (int64_t)EXACT_PAGE;
    fill(buf, offset, exact_len[i], 7);
    TEST_CALL(cc_gas_put(gas, offset, buf, exact_len[i]));
  }
  TEST_CALL(cc_gas_barrier(gas));
  exact_check_directory(gas, buf);
  exact_read_all(gas, got, "from DRAM");
  TEST_CALL(cc_gas_evict_all(gas, false)); /* every page on its owner's SSD only */
  cc_gas_reset_stats(gas);
  exact_read_all(gas, got, "from the SSD");
  cc_gas_stats st;
  cc_gas_get_stats(gas, &st);
  TEST_EXPECT(st.ssd_misses > 0, "no get after the eviction was an SSD miss");
  if (rank == 0)
    printf("exact: %d ranks, data path %s, %lld SSD misses on rank 0\n", size,
           cc_gas_data_path(gas), (long long)st.ssd_misses);
  /* a byte flipped in DRAM right after the owner read the page from its SSD; a page of this rank's
   * home: its owner is another rank whenever there are two (on another node when there are two) */
  TEST_CALL(cc_gas_evict_all(gas, false));
  cc_io_set_inject("gas-corrupt"); /* before the barrier, as in test_corrupt */
  TEST_CALL(cc_gas_barrier(gas));
  int64_t page = (int64_t)rank * EXACT_P + 3;
  cc_err err   = cc_gas_get(gas, page * (int64_t)EXACT_PAGE, got, exact_len[3]);
  char want[128];
  snprintf(want, sizeof want, "page %lld from owner %d is corrupt (read from its SSD)",
           (long long)page, cc_gas_owner(gas, page));
  TEST_EXPECT(err != CC_OK && strstr(cc_error_message(), want),
              "corrupt SSD page: '%s', wanted '%s'", err ? cc_error_message() : "accepted", want);
  if (rank == 0 && err) printf("exact: %s\n", cc_error_message());
  cc_error_clear();
  TEST_CALL(cc_gas_barrier(gas)); /* every owner has served its get */
  cc_io_set_inject(NULL);
  TEST_CALL(cc_gas_destroy(&gas));
  free(buf);
  free(got);
}

static void expect_error(cc_err err, const char *what, const char *want)
{
  TEST_EXPECT(err != CC_OK && strstr(cc_error_message(), want), "%s: '%s', wanted '%s'", what,
              err ? cc_error_message() : "accepted", want);
  if (rank == 0 && err) printf("errors: %s -> %s\n", what, cc_error_message());
  cc_error_clear();
}

static void test_errors(const char *dir)
{
  cc_gas_params p;
  cc_gas *gas = NULL;
  params(dir, 4, false, &p);
  p.page_bytes = 5000;
  expect_error(cc_gas_params_check(&p), "page 5000", "--gas-page 5000 must be a power of two");
  p.page_bytes = 2048;
  expect_error(cc_gas_params_check(&p), "page 2048", "--gas-page 2048 must be a power of two");
  params(dir, 4, false, &p);
  p.dram_bytes = PAGE - 1;
  expect_error(cc_gas_create(MPI_COMM_WORLD, &p, 1, &gas), "dram below a page",
               "--gas-dram 16383 is below one page");
  TEST_EXPECT(gas == NULL, "store created with a bad budget");
  /* O_DIRECT refused: an error naming it, or with fallback the buffered path, reported */
  params(dir, 4, false, &p);
  cc_io_set_inject("odirect-einval");
  expect_error(cc_gas_create(MPI_COMM_WORLD, &p, 1, &gas), "O_DIRECT refused", "refuses O_DIRECT");
  TEST_EXPECT(gas == NULL, "store created although O_DIRECT was refused");
  p.fallback = true;
  TEST_CALL(cc_gas_create(MPI_COMM_WORLD, &p, 1, &gas));
  cc_gas_stats st;
  cc_gas_get_stats(gas, &st);
  TEST_EXPECT(!strcmp(st.ssd_path_used, "pwrite-buffered"), "fallback path '%s'", st.ssd_path_used);
  TEST_CALL(cc_gas_destroy(&gas));
  cc_io_set_inject(NULL);
  cc_io_set_inject("register-enomem");
  p.fallback = false;
  expect_error(cc_gas_create(MPI_COMM_WORLD, &p, 1, &gas), "registration refused",
               "io_uring_register_buffers");
  cc_io_set_inject(NULL);
  /* capacity: 10 pages per home against one page of DRAM + one of SSD */
  params(dir, 1, false, &p);
  p.ssd_bytes = PAGE;
  expect_error(cc_gas_check_capacity(MPI_COMM_WORLD, &p, 10 * PAGE), "capacity",
               "more than --gas-dram 16384 + SSD capacity 16384");
  p.ssd_bytes = 9 * PAGE;
  TEST_CALL(cc_gas_check_capacity(MPI_COMM_WORLD, &p, 10 * PAGE));
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  /* the scripts' interface (tests/io_kill.sh, ...): the spec from the environment, once */
  cc_io_set_inject(getenv("CUBECG_IO_INJECT"));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_rank = rank;
  if (argc != 3) {
    if (rank == 0)
      fprintf(stderr, "usage: test_gas_store basic|coop|race|corrupt|exact|errors DIR\n");
    MPI_Finalize();
    return 2;
  }
  const char *mode = argv[1], *dir = argv[2];
  if (rank == 0) {
    mkdir(dir, 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(mode, "basic"))
    test_basic(dir);
  else if (!strcmp(mode, "coop"))
    test_coop(dir);
  else if (!strcmp(mode, "corrupt"))
    test_corrupt(dir);
  else if (!strcmp(mode, "race"))
    test_evict_race(dir);
  else if (!strcmp(mode, "exact"))
    test_exact(dir);
  else if (!strcmp(mode, "errors"))
    test_errors(dir);
  else {
    if (rank == 0) fprintf(stderr, "unknown mode %s\n", mode);
    test_failures++;
  }
  char name[64];
  snprintf(name, sizeof name, "test_gas_store %s", mode);
  return test_finish(name);
}
