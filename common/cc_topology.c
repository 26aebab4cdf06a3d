/* cc_topology.c: nodes, hosts, oversubscription, CPU affinity and provenance for every report kind;
 * see cc_topology.h. */
#include "cc_topology.h"

#include <ctype.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* One rank's affinity record, gathered to rank 0: a header, then one entry per OpenMP thread. */
typedef struct {
  int node, node_rank, threads;
  cpu_set_t mask;
} rank_header;
typedef struct {
  int cpu;
  cpu_set_t mask;
} thread_entry;
#define CC_TOPO_MAX_THREADS 256 /* threads recorded per rank (more are counted, not listed) */

char *cc_cpu_list(const void *cpu_set, char *out, size_t size)
{
  const cpu_set_t *set = cpu_set;
  size_t used          = 0;
  out[0]               = '\0';
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set)) last++;
    int n = last > c ? snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", c, last)
                     : snprintf(out + used, size - used, "%s%d", used ? "," : "", c);
    if (n < 0 || (size_t)n >= size - used) break; /* truncated: keep what fits */
    used += (size_t)n;
    c = last;
  }
  return out;
}

double cc_llc_bytes(void)
{
  double best = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  long s = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (s > 0) best = (double)s;
#endif
  for (int idx = 0; idx < 8; idx++) {
    char path[96], buf[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(buf, sizeof buf, f)) {
      char *end;
      double v = strtod(buf, &end);
      if (*end == 'K') v *= 1024;
      if (*end == 'M') v *= 1024 * 1024;
      if (v > best) best = v;
    }
    fclose(f);
  }
  return best > 0 ? best : 32.0 * 1024 * 1024;
}

static int cores_online(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* FNV-1a of the host name: the color of the per-host communicator (collisions are detected). */
static int name_color(const char *name)
{
  uint32_t h = 2166136261u;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 16777619u;
  return (int)(h & 0x7fffffff);
}

/* The communicator of the ranks on this rank's host, checked by comparing names. */
static cc_err host_comm_create(MPI_Comm comm, char *name, MPI_Comm *host)
{
  int length = 0, rank;
  memset(name, 0, MPI_MAX_PROCESSOR_NAME);
  CC_MPI(MPI_Get_processor_name(name, &length));
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_split(comm, name_color(name), rank, host));
  char root_name[MPI_MAX_PROCESSOR_NAME];
  memcpy(root_name, name, MPI_MAX_PROCESSOR_NAME);
  CC_MPI(MPI_Bcast(root_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, *host));
  int differ = strcmp(root_name, name) != 0, any;
  CC_MPI(MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, comm));
  CC_CHECK(!any, CC_ERR_MPI, "two host names share a hash (%s, %s): cannot group ranks by host",
           root_name, name);
  return CC_OK;
}

cc_err cc_threads_choose(MPI_Comm comm, int *threads, char *why, size_t why_size)
{
  const char *env = getenv("OMP_NUM_THREADS");
  /* the default below is collective: every rank must take the same branch */
  int set = env && env[0], all_set, any_set;
  CC_MPI(MPI_Allreduce(&set, &all_set, 1, MPI_INT, MPI_MIN, comm));
  CC_MPI(MPI_Allreduce(&set, &any_set, 1, MPI_INT, MPI_MAX, comm));
  CC_CHECK(all_set == any_set, CC_ERR_ARG,
           "OMP_NUM_THREADS is set on some ranks and unset on others: set it for all ranks");
  if (set) {
    *threads = omp_get_max_threads();
    snprintf(why, why_size, "OMP_NUM_THREADS=%s", env);
    return CC_OK;
  }
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm host;
  CC_CALL(host_comm_create(comm, name, &host));
  int on_host;
  CC_MPI(MPI_Comm_size(host, &on_host));
  CC_MPI(MPI_Comm_free(&host));
  int cpus = cores_online(), per_rank = cpus / on_host, mask_cpus = cpus;
  cpu_set_t mask;
  CC_SYS(sched_getaffinity(0, sizeof mask, &mask));
  mask_cpus = CPU_COUNT(&mask);
  int local = per_rank < 1 ? 1 : per_rank;
  if (local > mask_cpus) local = mask_cpus;
  int chosen;
  CC_MPI(MPI_Allreduce(&local, &chosen, 1, MPI_INT, MPI_MIN, comm));
  /* the numbers of the rank that set the minimum, so the line explains itself */
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  int mine = local == chosen ? rank : INT32_MAX, who;
  CC_MPI(MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, comm));
  int facts[3] = {cpus, on_host, mask_cpus};
  CC_MPI(MPI_Bcast(facts, 3, MPI_INT, who, comm));
  CC_MPI(MPI_Bcast(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, who, comm));
  snprintf(why, why_size,
           "OMP_NUM_THREADS unset: %d = %d online CPUs on host %s / %d ranks there (min 1, at most "
           "the %d CPUs of the rank's affinity mask, min over ranks)",
           chosen, facts[0], name, facts[1], facts[2]);
  omp_set_num_threads(chosen);
  *threads = chosen;
  return CC_OK;
}

cc_err cc_placement_resolve(const char *option, cc_topology *topo)
{
  const char *value = option, *source = "--placement";
  if (!value || !value[0]) value = getenv("CUBECG_PLACEMENT"), source = "CUBECG_PLACEMENT";
  if (!value || !value[0]) {
    topo->placement[0] = '\0';
    snprintf(topo->placement_source, sizeof topo->placement_source, "none");
    return CC_OK;
  }
  size_t n = strlen(value);
  int ok   = n < CC_PLACEMENT_MAX;
  for (size_t i = 0; ok && i < n; i++)
    ok = isalnum((unsigned char)value[i]) || strchr("._:+-", value[i]) != NULL;
  CC_CHECK(ok, CC_ERR_ARG,
           "%s: '%s' is not a placement name (1-63 characters of letters, digits and ._:+-)",
           source, value);
  snprintf(topo->placement, sizeof topo->placement, "%s", value);
  snprintf(topo->placement_source, sizeof topo->placement_source, "%s", source);
  return CC_OK;
}

static void progress_affinity(cc_topology *topo, int progress_active)
{
  static const char *const names[] = {"MPIR_CVAR_PROGRESS_THREAD_AFFINITY",
                                      "MPICH_PROGRESS_THREAD_AFFINITY",
                                      "MPIR_PARAM_PROGRESS_THREAD_AFFINITY"};
  topo->progress_active            = progress_active;
  for (int i = 0; i < 3; i++) {
    const char *value = getenv(names[i]);
    if (value && value[0]) {
      snprintf(topo->progress_setting, sizeof topo->progress_setting, "%s", value);
      snprintf(topo->progress_decided_by, sizeof topo->progress_decided_by,
               "environment %s: MPICH pins the progress thread of the rank with node-local rank i "
               "to entry i of the list ('auto': CPU nprocs-1-i)",
               names[i]);
      return;
    }
  }
  topo->progress_setting[0] = '\0';
  snprintf(
      topo->progress_decided_by, sizeof topo->progress_decided_by,
      "MPIR_CVAR_PROGRESS_THREAD_AFFINITY unset: the progress thread inherits the affinity mask "
      "of its rank (per rank: progress_thread_cpus)");
}

/* Nodes (MPI_COMM_TYPE_SHARED groups): their number, ranks per node, CPUs and LLC per node; this
 * rank's node index and rank in it. */
static cc_err topology_nodes(MPI_Comm comm, int rank, cc_topology *topo, int *node_id,
                             int *node_rank, int *cpus)
{
  MPI_Comm node;
  CC_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int node_size;
  CC_MPI(MPI_Comm_rank(node, node_rank));
  CC_MPI(MPI_Comm_size(node, &node_size));
  /* a node's index: how many nodes have a first rank below its first rank */
  int leader = *node_rank == 0;
  *node_id   = 0;
  CC_MPI(MPI_Exscan(&leader, node_id, 1, MPI_INT, MPI_SUM, comm));
  if (rank == 0) *node_id = 0; /* MPI_Exscan leaves rank 0's result undefined */
  CC_MPI(MPI_Bcast(node_id, 1, MPI_INT, 0, node));
  CC_MPI(MPI_Comm_free(&node));
  CC_MPI(MPI_Allreduce(&leader, &topo->nodes, 1, MPI_INT, MPI_SUM, comm));
  CC_MPI(MPI_Allreduce(&node_size, &topo->ranks_per_node_min, 1, MPI_INT, MPI_MIN, comm));
  CC_MPI(MPI_Allreduce(&node_size, &topo->ranks_per_node_max, 1, MPI_INT, MPI_MAX, comm));
  *cpus = cores_online();
  CC_MPI(MPI_Allreduce(cpus, &topo->cores_per_node, 1, MPI_INT, MPI_MIN, comm));
  double llc = cc_llc_bytes();
  CC_MPI(MPI_Allreduce(&llc, &topo->llc_bytes, 1, MPI_DOUBLE, MPI_MIN, comm));
  topo->node_size = node_size;
  return CC_OK;
}

/* Hosts and oversubscription: threads of all ranks on a host against its online CPUs (the first
 * oversubscribed host named); the distinct host names on rank 0. */
static cc_err topology_hosts(MPI_Comm comm, int rank, int size, int cpus, cc_topology *topo)
{
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm host;
  CC_CALL(host_comm_create(comm, name, &host));
  int host_rank, load;
  CC_MPI(MPI_Comm_rank(host, &host_rank));
  CC_MPI(MPI_Allreduce(&topo->threads, &load, 1, MPI_INT, MPI_SUM, host));
  CC_MPI(MPI_Comm_free(&host));
  int host_leader = host_rank == 0, over = host_leader && load > cpus;
  CC_MPI(MPI_Allreduce(&host_leader, &topo->hosts, 1, MPI_INT, MPI_SUM, comm));
  CC_MPI(MPI_Allreduce(&over, &topo->oversubscribed, 1, MPI_INT, MPI_MAX, comm));
  if (topo->oversubscribed) {
    int mine = over ? rank : INT32_MAX, who;
    CC_MPI(MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, comm));
    int facts[2] = {load, cpus};
    CC_MPI(MPI_Bcast(facts, 2, MPI_INT, who, comm));
    char who_name[MPI_MAX_PROCESSOR_NAME];
    memcpy(who_name, name, sizeof who_name);
    CC_MPI(MPI_Bcast(who_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, who, comm));
    snprintf(topo->oversubscribed_why, sizeof topo->oversubscribed_why,
             "host %.64s: %d threads (ranks x threads) on %d online CPUs", who_name, facts[0],
             facts[1]);
  }

  /* distinct host names on rank 0 (each host's first rank sends its name, others send "") */
  char *all_names = NULL;
  if (rank == 0) CC_CALL(cc_calloc((size_t)size, MPI_MAX_PROCESSOR_NAME, &all_names));
  char send_name[MPI_MAX_PROCESSOR_NAME] = {0};
  if (host_leader) memcpy(send_name, name, sizeof send_name);
  CC_MPI(MPI_Gather(send_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all_names, MPI_MAX_PROCESSOR_NAME,
                    MPI_CHAR, 0, comm));
  if (rank == 0) {
    int n = 0;
    for (int r = 0; r < size; r++) {
      const char *s = all_names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
      if (s[0])
        memmove(all_names + (size_t)n++ * MPI_MAX_PROCESSOR_NAME, s, MPI_MAX_PROCESSOR_NAME);
    }
    topo->hostnames = all_names;
  }

  return CC_OK;
}

/* Affinity: the rank's mask (main thread) and each OpenMP thread's CPU and own mask, gathered on
 * rank 0 (topo->records). */
static cc_err topology_affinity(MPI_Comm comm, int rank, int size, int node_id, int node_rank,
                                cc_topology *topo)
{
  int threads_max;
  CC_MPI(MPI_Allreduce(&topo->threads, &threads_max, 1, MPI_INT, MPI_MAX, comm));
  if (threads_max > CC_TOPO_MAX_THREADS) threads_max = CC_TOPO_MAX_THREADS;
  topo->record_bytes = (int)(sizeof(rank_header) + (size_t)threads_max * sizeof(thread_entry));
  unsigned char *record;
  CC_CALL(cc_calloc(1, (size_t)topo->record_bytes, &record));
  rank_header *head = (rank_header *)record;
  thread_entry *te  = (thread_entry *)(record + sizeof(rank_header));
  head->node        = node_id;
  head->node_rank   = node_rank;
  head->threads     = topo->threads;
  CC_SYS(sched_getaffinity(0, sizeof head->mask, &head->mask));
  int failed = 0;
#pragma omp parallel reduction(+ : failed)
  {
    int t = omp_get_thread_num();
    if (t < threads_max) {
      te[t].cpu = sched_getcpu();
      if (sched_getaffinity(0, sizeof te[t].mask, &te[t].mask) != 0) failed++;
    }
  }
  if (failed) cc_free(&record);
  CC_CHECK(!failed, CC_ERR_SYS, "sched_getaffinity failed in %d OpenMP threads", failed);
  if (rank == 0) CC_CALL(cc_malloc((size_t)size, (size_t)topo->record_bytes, &topo->records));
  int rc = MPI_Gather(record, topo->record_bytes, MPI_BYTE, topo->records, topo->record_bytes,
                      MPI_BYTE, 0, comm);
  cc_free(&record);
  CC_MPI(rc);
  return CC_OK;
}

cc_err cc_topology_gather(MPI_Comm comm, int progress_active, cc_topology *topo)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  topo->ranks   = size;
  topo->threads = omp_get_max_threads();
  progress_affinity(topo, progress_active);
  int node_id, node_rank, cpus;
  CC_CALL(topology_nodes(comm, rank, topo, &node_id, &node_rank, &cpus));
  CC_CALL(topology_hosts(comm, rank, size, cpus, topo));
  CC_CALL(topology_affinity(comm, rank, size, node_id, node_rank, topo));
  return CC_OK;
}

cc_err cc_topology_setup(MPI_Comm comm, const char *placement_option, int progress_active,
                         cc_topology *topo)
{
  CC_CALL(cc_placement_resolve(placement_option, topo));
  int threads;
  CC_CALL(
      cc_threads_choose(comm, &threads, topo->threads_chosen_by, sizeof topo->threads_chosen_by));
  CC_CALL(cc_topology_gather(comm, progress_active, topo));
  return CC_OK;
}

cc_err cc_mpi_library(char *out, size_t size)
{
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int length;
  CC_MPI(MPI_Get_library_version(library, &length));
  for (char *c = library; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  snprintf(out, size, "%s", library);
  return CC_OK;
}

void cc_topology_free(cc_topology *topo)
{
  cc_free(&topo->hostnames);
  cc_free(&topo->records);
}

/* The CPU MPICH pins a rank's progress thread to under MPIR_CVAR_PROGRESS_THREAD_AFFINITY (its
 * get_thread_affinity: entry node_rank of the comma list; "auto": nprocs - 1 - node_rank). */
static void progress_cpu(const char *setting, int node_rank, char *out, size_t size)
{
  if (strcmp(setting, "auto") == 0) {
    int nprocs = cores_online();
    snprintf(out, size, "%d", nprocs - 1 - node_rank % nprocs);
    return;
  }
  const char *entry = setting;
  for (int i = 0; i < node_rank && entry; i++) {
    entry = strchr(entry, ',');
    if (entry) entry++;
  }
  if (!entry || !isdigit((unsigned char)*entry)) {
    snprintf(out, size, "%s", setting); /* MPICH refuses such a list at MPI_Init */
    return;
  }
  snprintf(out, size, "%.*s", (int)strcspn(entry, ","), entry);
}

void cc_topology_json(const cc_topology *topo, cc_json *js)
{
  char list[1024];
  cc_json_begin_object(js, "topology");
  cc_json_int(js, "nodes", topo->nodes);
  cc_json_int(js, "ranks_per_node_min", topo->ranks_per_node_min);
  cc_json_int(js, "ranks_per_node_max", topo->ranks_per_node_max);
  cc_json_int(js, "cores_per_node", topo->cores_per_node);
  cc_json_int(js, "llc_bytes", (int64_t)topo->llc_bytes);
  cc_json_int(js, "hosts", topo->hosts);
  cc_json_begin_array(js, "hostnames");
  for (int h = 0; topo->hostnames && h < topo->hosts; h++)
    cc_json_string(js, NULL, topo->hostnames + (size_t)h * MPI_MAX_PROCESSOR_NAME);
  cc_json_end_array(js);
  cc_json_int(js, "ranks", topo->ranks);
  cc_json_int(js, "threads", topo->threads);
  cc_json_string(js, "threads_chosen_by", topo->threads_chosen_by);
  cc_json_bool(js, "oversubscribed", topo->oversubscribed);
  cc_json_string(js, "oversubscribed_why", topo->oversubscribed ? topo->oversubscribed_why : NULL);
  cc_json_string(js, "placement", topo->placement[0] ? topo->placement : NULL);
  cc_json_string(js, "placement_source", topo->placement_source);
  cc_json_begin_object(js, "progress_thread_affinity");
  cc_json_bool(js, "active", topo->progress_active);
  cc_json_string(js, "setting", topo->progress_setting[0] ? topo->progress_setting : NULL);
  cc_json_string(js, "decided_by", topo->progress_decided_by);
  cc_json_end_object(js);
  cc_json_begin_array(js, "affinity");
  for (int r = 0; topo->records && r < topo->ranks; r++) {
    const unsigned char *rec = topo->records + (size_t)r * topo->record_bytes;
    const rank_header *head  = (const rank_header *)rec;
    const thread_entry *te   = (const thread_entry *)(rec + sizeof(rank_header));
    int listed = (int)((topo->record_bytes - sizeof(rank_header)) / sizeof(thread_entry));
    if (head->threads < listed) listed = head->threads;
    cc_json_begin_object(js, NULL);
    cc_json_int(js, "rank", r);
    cc_json_int(js, "node", head->node);
    cc_json_int(js, "node_rank", head->node_rank);
    cc_json_string(js, "cpus", cc_cpu_list(&head->mask, list, sizeof list));
    char progress[sizeof topo->progress_setting];
    if (topo->progress_setting[0])
      progress_cpu(topo->progress_setting, head->node_rank, progress, sizeof progress);
    cc_json_string(js, "progress_thread_cpus",
                   !topo->progress_active      ? NULL
                   : topo->progress_setting[0] ? progress
                                               : list);
    cc_json_begin_array(js, "threads");
    for (int t = 0; t < listed; t++) {
      cc_json_begin_object(js, NULL);
      cc_json_int(js, "thread", t);
      cc_json_int(js, "cpu", te[t].cpu);
      cc_json_string(js, "cpus", cc_cpu_list(&te[t].mask, list, sizeof list));
      cc_json_end_object(js);
    }
    cc_json_end_array(js);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_end_object(js);
}

static void cpu_model(char *out, size_t size)
{
  snprintf(out, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(out, size, "%s", colon + 2);
      out[strcspn(out, "\n")] = '\0';
      break;
    }
  }
  fclose(f);
}

void cc_provenance_json(cc_json *js)
{
  char date[64] = "unknown", host[256] = "unknown", cpu[256];
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "unknown");
  cpu_model(cpu, sizeof cpu);
  cc_json_string(js, "date", date);
  cc_json_begin_object(js, "build");
  cc_json_string(js, "compiler", __VERSION__);
  cc_json_string(js, "flags", cc_build_flags);
  cc_json_string(js, "build_type", cc_build_type);
  cc_json_string(js, "launcher", cc_build_launcher);
  cc_json_string(js, "git_commit", cc_build_git_commit);
  if (cc_build_git_dirty < 0)
    cc_json_string(js, "git_dirty", NULL);
  else
    cc_json_bool(js, "git_dirty", cc_build_git_dirty);
  cc_json_end_object(js);
  cc_json_begin_object(js, "platform");
  cc_json_string(js, "hostname", host);
  cc_json_string(js, "cpu", cpu);
  cc_json_int(js, "cores_online", cores_online());
  cc_json_end_object(js);
}
