/* consumer.c: a program built against an installed cubecg (find_package or pkg-config): it links
 * every library and runs one call of each. */
#include "cc_io.h"
#include "cc_mesh.h"
#include "cc_solvers.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int64_t bytes = 0;
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  int ok = cc_parse_bytes("4k", &bytes) == CC_OK && bytes == 4096 && params.nx > 0 &&
           cc_io_backend_names()[0] != '\0';
  printf("consumer: %s (cubecg %s)\n", ok ? "PASS" : "FAIL", CC_VERSION);
  MPI_Finalize();
  return ok ? 0 : 1;
}
