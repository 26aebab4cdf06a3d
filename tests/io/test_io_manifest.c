/* test_io_manifest.c: the checkpoint manifest reader (io/checkpoint/ckpt_manifest.c, cJSON).
 * Usage: test_io_manifest DIR. A written manifest reads back field by field (doubles bitwise);
 * another formatting, key order and unknown keys are accepted; a missing or mistyped key is refused
 * naming the key and the file; no "problem" object (older cubecg) reads with has_problem false;
 * the run's "settings" read back as the driver wrote them ("option=value" lines, order kept), no
 * "settings" object as none, a non-string setting is refused;
 * truncated text and arbitrary bytes are refused without a crash. */
#include "io_internal.h"
#include "test_io_util.h"

static const char *path = "test/manifest.json";

static void expect_parse_fails(const char *text, const char *what, const char *context)
{
  io_manifest m;
  cc_err err = io_manifest_parse(text, path, &m);
  TIO_CHECK(err != CC_OK, "%s: accepted", context);
  const char *msg = cc_error_message();
  TIO_CHECK(strstr(msg, what) && strstr(msg, path), "%s: message '%s' does not name '%s' and %s",
            context, msg, what, path);
  printf("%s refused: %s\n", context, msg);
  cc_error_clear();
}

/* text with the first occurrence of from replaced by to */
static char *replaced(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  TIO_CHECK(at != NULL, "'%s' not in the manifest", from);
  size_t n  = strlen(text) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  TIO_CHECK(out != NULL, "malloc");
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return out;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  TIO_CHECK(argc == 2, "usage: %s DIR", argv[0]);
  char file[1200];
  tio_clean_dir(MPI_COMM_WORLD, argv[1]);
  snprintf(file, sizeof file, "%s/manifest.json", argv[1]);

  io_manifest w;
  memset(&w, 0, sizeof w);
  w.version = CC_IO_MANIFEST_VERSION;
  snprintf(w.backend, sizeof w.backend, "posix");
  w.iteration = 40;
  snprintf(w.solver, sizeof w.solver, "pipecg");
  w.nx = 10, w.ny = 9, w.nz = 8, w.ranks = 2, w.values_per_node = 3, w.n_global_nodes = 720;
  snprintf(w.partition, sizeof w.partition, "box 2x1x1");
  snprintf(w.ordering, sizeof w.ordering, "cm-rcm");
  w.has_problem = true;
  w.E           = 2.1e11;
  w.nu          = 0.1 + 0.2; /* 0.30000000000000004: must come back bitwise */
  w.traction    = 1e-300;
  snprintf(w.precond, sizeof w.precond, "asdd");
  w.colors = 10, w.asdd_iters = 2, w.n_vectors = 2;
  snprintf(w.settings, sizeof w.settings,
           "nx=10\nsolver=pipecg\nnu=0.30000000000000004\n"
           "spectrum-bounds=\nreplace-every=auto\n");
  snprintf(w.vector_name[0], CC_IO_NAME_LEN, "x");
  snprintf(w.vector_name[1], CC_IO_NAME_LEN, "r");
  io_manifest_file files[2] = {{"rank.0.bin", 0, 5000000000LL, 0xdeadbeef, false},
                               {"rank.1.bin", 1, 30016, 0x0000abcd, true}};
  w.files                   = files;
  w.n_files                 = 2;
  TIO_OK(io_manifest_write(file, &w, false));
  char *text;
  TIO_OK(io_read_text(file, &text, NULL));

  io_manifest m;
  TIO_OK(io_manifest_parse(text, path, &m));
  TIO_CHECK(m.version == w.version && !strcmp(m.backend, "posix") && m.iteration == 40 &&
                !strcmp(m.solver, "pipecg") && m.nx == 10 && m.ny == 9 && m.nz == 8 &&
                m.ranks == 2 && m.values_per_node == 3 && m.n_global_nodes == 720 &&
                !strcmp(m.partition, "box 2x1x1") && !strcmp(m.ordering, "cm-rcm"),
            "header fields differ");
  TIO_CHECK(m.has_problem && !memcmp(&m.E, &w.E, 8) && !memcmp(&m.nu, &w.nu, 8) &&
                !memcmp(&m.traction, &w.traction, 8) && !strcmp(m.precond, "asdd") &&
                m.colors == 10 && m.asdd_iters == 2,
            "problem differs: E %.17g nu %.17g traction %.17g", m.E, m.nu, m.traction);
  TIO_CHECK(!strcmp(m.settings, w.settings), "settings read back as '%s', written '%s'", m.settings,
            w.settings);
  TIO_CHECK(m.n_files == 2 && !strcmp(m.files[0].file, "rank.0.bin") && m.files[0].rank == 0 &&
                m.files[0].bytes == 5000000000LL && m.files[0].crc32c == 0xdeadbeef &&
                m.files[1].bytes == 30016 && m.files[1].crc32c == 0x0000abcd &&
                !m.files[0].crc_of_data && m.files[1].crc_of_data,
            "files differ");
  io_manifest_free(&m);

  /* other formatting, other key order, unknown keys (top level, nested, in a file entry) */
  const char *compact =
      "{ \"files\" : [ { \"crc32c\" : \"0000abcd\" , \"bytes\" : 30016 , \"rank\" : 0 , "
      "\"file\" : \"rank.0.bin\", \"extra\": {\"file\": \"x\"} } ] , \"ranks\" : 1 , "
      "\"future_key\": [1, 2, {\"nx\": 99}], \"mesh\" : { \"nz\" : 8 , \"ny\" : 9 , \"nx\" : 10 ,"
      " \"dx\": 0.5 } , \"ordering\":\"rcm\",\"partition\":\"box 1x1x1\",\"values_per_node\":3,"
      "\"n_global_nodes\":720,\"solver\":\"pcg\",\"iteration\":10,\"backend\":\"uring\","
      "\"cubecg_checkpoint_version\":1}";
  TIO_OK(io_manifest_parse(compact, path, &m));
  TIO_CHECK(m.nx == 10 && m.n_files == 1 && m.files[0].bytes == 30016 && !m.has_problem &&
                !strcmp(m.backend, "uring") && m.settings[0] == '\0',
            "compact manifest read wrongly");
  io_manifest_free(&m);
  printf("compact, reordered, unknown keys: accepted\n");

  /* missing and mistyped keys: refused naming the key and the file */
  char *t;
  t = replaced(text, "\"ranks\"", "\"rank_count\"");
  expect_parse_fails(t, "\"ranks\" missing", "missing ranks");
  free(t);
  t = replaced(text, "\"nx\":\t10", "\"nx\":\t\"10\"");
  expect_parse_fails(t, "\"mesh.nx\" is not an integer", "mistyped mesh.nx");
  free(t);
  t = replaced(text, "\"nx\":\t10", "\"nx\":\t10.5");
  expect_parse_fails(t, "\"mesh.nx\" is not an integer", "fractional mesh.nx");
  free(t);
  t = replaced(text, "\"E\":\t", "\"E\":\t\"x\", \"E_old\":\t");
  expect_parse_fails(t, "\"problem.E\" is not a finite number", "mistyped problem.E");
  free(t);
  t = replaced(text, "\"colors\"", "\"colours\"");
  expect_parse_fails(t, "\"problem.colors\" missing", "incomplete problem");
  free(t);
  t = replaced(text, "\"bytes\":\t30016", "\"bytes\":\t-1");
  expect_parse_fails(t, "\"files[1].bytes\"", "negative size");
  free(t);
  t = replaced(text, "\"rank\":\t1", "\"rank\":\t7");
  expect_parse_fails(t, "\"files[1].rank\"", "rank beyond ranks");
  free(t);
  t = replaced(text, "\"rank.1.bin\"", "\"../rank.1.bin\"");
  expect_parse_fails(t, "bad file name", "file outside the checkpoint");
  free(t);
  t = replaced(text, "\"0000abcd\"", "\"0x00abcd\"");
  expect_parse_fails(t, "crc32c", "bad crc");
  free(t);
  t = replaced(text, "\"nx\":\t\"10\"", "\"nx\":\t10");
  expect_parse_fails(t, "\"settings.nx\" is not a string", "mistyped setting");
  free(t);
  t = replaced(text, "\"durable\":\tfalse", "\"durable\":\t0");
  expect_parse_fails(t, "\"durable\" is not a boolean", "mistyped durable");
  free(t);

  /* truncated at every length, and arbitrary bytes: refused, never a crash */
  size_t n     = strlen(text);
  int refused  = 0;
  char *prefix = malloc(n + 1);
  for (size_t len = 0; len < n - 2; len++) {
    memcpy(prefix, text, len);
    prefix[len] = '\0';
    if (io_manifest_parse(prefix, path, &m) != CC_OK)
      refused++, cc_error_clear();
    else
      io_manifest_free(&m);
  }
  TIO_CHECK(refused == (int)(n - 2), "%d of %zu truncations accepted", (int)(n - 2) - refused,
            n - 2);
  uint64_t seed = 7;
  for (int trial = 0; trial < 2000; trial++) {
    memcpy(prefix, text, n + 1);
    for (int k = 0; k < 4; k++) { /* flip bytes (never to NUL: the reader takes C strings) */
      size_t at  = (size_t)(tio_rand(&seed) % n);
      prefix[at] = (char)(1 + tio_rand(&seed) % 255);
    }
    if (io_manifest_parse(prefix, path, &m) == CC_OK)
      io_manifest_free(&m);
    else
      cc_error_clear();
  }
  printf("%zu truncations refused; 2000 damaged manifests parsed without a crash\n", n - 2);
  free(prefix);
  free(text);
  printf("PASS\n");
  MPI_Finalize();
  return 0;
}
