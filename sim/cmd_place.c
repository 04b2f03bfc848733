/* icsim place: the resource manager's question. For P cores on a platform, enumerate the
 * subsystem shapes N nodes x C cores (N x C = P), simulate the chosen exchange pattern on each
 * and print the shapes ranked by time. With --pattern-file, rank -> node mappings of a recorded
 * pattern instead, proposed by the layer that recorded it (cmd_place_pattern.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "cli.h"
#include "platform.h"
#include "runtime.h"
#include "units.h"

struct shape {
  int nodes, cores;
  double seconds;
};

static int by_time(const void *a, const void *b)
{
  const struct shape *x = a, *y = b;
  if (x->seconds != y->seconds)
    return x->seconds < y->seconds ? -1 : 1;
  return x->nodes - y->nodes; /* ties: fewer nodes first */
}

/* Time printed by the pattern's workload: last numeric value of its last data row. */
static double last_value(int fd)
{
  char buf[65536];
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  double v = -1;
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#')
      continue;
    char *last = strrchr(line, ' ');
    v = atof(last ? last + 1 : line);
  }
  return v;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: icsim place -p PLATFORM.yaml -n P [--pattern alltoall|mpi-alltoall|allreduce] [--msg SIZE]\n"
             "                   [--block B] [--set KEY=VALUE]...\n"
             "Simulates the pattern on every shape N nodes x C cores with N x C = P and ranks them.\n"
             "  alltoall      the block all-to-all of Peryshkova and Kurnosov (--block, default 1)\n"
             "  mpi-alltoall  MPI_Alltoall\n"
             "  allreduce     MPI_Allreduce (osu_allreduce at one size)\n"
             "  --msg         bytes per pair (alltoall) or per vector (allreduce); default 1MiB\n"
             "   or: icsim place -p PLATFORM.yaml -n P --pattern-file FILE [--write-best OUT.conf] [--seed S]\n"
             "                   [--set KEY=VALUE]...\n");
  /* what the layers that place recorded patterns say of it (stack.h, place_pattern) */
  for (size_t i = 0; i < icsim_stack_count(); i++)
    if (icsim_stack_at(i)->place_pattern && icsim_stack_at(i)->place_pattern_help)
      fputs(icsim_stack_at(i)->place_pattern_help, f);
}

int cmd_place(int argc, char **argv)
{
  const char *platform = NULL, *pattern = "alltoall", *msg = "1MiB", *block = "1", *pattern_file = NULL,
             *write_best = NULL, *np = NULL, *seed_text = "1";
  unsigned seed = 1;
  /* the numbers this command takes, checked before any run (cli.h) */
  static const struct icsim_cli_num d_np = {"-n", ICSIM_DIM_NONE, 1, 1 << 20, true, "8", "the number of cores", false},
                                    d_msg = {"--msg", ICSIM_DIM_SIZE, 1, 1 << 30, true, "1MiB",
                                             "bytes per pair or per vector", false},
                                    d_block = {"--block", ICSIM_DIM_NONE, 1, 1 << 20, true, "1",
                                               "exchanges in flight per rank, at most -n", false},
                                    d_seed = {"--seed", ICSIM_DIM_NONE, 0, 4294967295.0, true, "1", NULL, false};
  char **sets = NULL;
  int nsets = 0, P = 0, c;
  static const struct option opts[] = {{"platform", required_argument, 0, 'p'}, {"np", required_argument, 0, 'n'},
                                       {"pattern", required_argument, 0, 'P'},  {"msg", required_argument, 0, 'm'},
                                       {"block", required_argument, 0, 'b'},    {"set", required_argument, 0, 's'},
                                       {"pattern-file", required_argument, 0, 'F'},
                                       {"write-best", required_argument, 0, 'W'},
                                       {"seed", required_argument, 0, 'S'},
                                       {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:n:h", opts, NULL)) != -1) {
    switch (c) {
    case 'p': platform = optarg; break;
    case 'n': np = optarg; break;
    case 'P': pattern = optarg; break;
    case 'm': msg = optarg; break;
    case 'b': block = optarg; break;
    case 'F': pattern_file = optarg; break;
    case 'W': write_best = optarg; break;
    case 'S': seed_text = optarg; break;
    case 's':
      sets = realloc(sets, (size_t)(nsets + 1) * sizeof *sets);
      sets[nsets++] = optarg;
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  char err[2048];
  double bytes, v;
  if (!platform || !np) {
    usage(stderr);
    free(sets);
    return 2;
  }
  if (icsim_cli_number(&d_np, np, &v, err, sizeof err) || (P = (int)v, 0) ||
      icsim_cli_number(&d_seed, seed_text, &v, err, sizeof err) || (seed = (unsigned)v, 0)) {
    fprintf(stderr, "icsim place: %s\n", err);
    free(sets);
    return 2;
  }
  if (pattern_file) {
    int rc = cmd_place_pattern(platform, P, pattern_file, write_best, seed, sets, nsets);
    free(sets);
    return rc;
  }
  if (write_best) {
    fprintf(stderr, "icsim place: --write-best needs --pattern-file\n");
    free(sets);
    return 2;
  }
  if (icsim_cli_number(&d_msg, msg, &bytes, err, sizeof err) || icsim_cli_number(&d_block, block, &v, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    free(sets);
    return 2;
  }
  if (v > P) {
    fprintf(stderr, "icsim place: --block %s: out of range: give a whole number from 1 to %d (-n) (e.g. --block 1)\n",
            block, P);
    free(sets);
    return 2;
  }
  /* every rank of the simulation lives in this one process: the all-to-all holds a send and a
   * receive buffer of --msg per peer in each rank (2 x msg x P x P in all), the allreduce two
   * vectors per rank; both must fit in this machine's memory, or the allocation fails inside
   * SimGrid */
  double need = !strcmp(pattern, "allreduce") ? 2 * bytes * P : 2 * bytes * (double)P * P,
         have = icsim_physical_memory();
  if (have > 0 && need > have / 2) {
    char a[32], b[32];
    fprintf(stderr, "icsim place: --msg %s with -n %d: the simulated ranks would hold %s of buffers, more than half "
                    "of this machine's %s; give a smaller --msg or -n\n",
            msg, P, icsim_cli_show(need, ICSIM_DIM_SIZE, a, sizeof a), icsim_cli_show(have, ICSIM_DIM_SIZE, b, sizeof b));
    free(sets);
    return 2;
  }
  if (strcmp(pattern, "alltoall") && strcmp(pattern, "mpi-alltoall") && strcmp(pattern, "allreduce")) {
    fprintf(stderr, "icsim place: --pattern %s: use alltoall, mpi-alltoall or allreduce\n", pattern);
    free(sets);
    return 2;
  }
  struct icsim_platform pf;
  if (icsim_platform_load(&pf, platform, sets, nsets, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    free(sets);
    return 2;
  }
  int cores = pf.p.sockets * pf.p.cores_per_socket, nodes = pf.p.nodes;
  icsim_platform_free(&pf);
  struct shape shapes[256];
  int n = 0;
  for (int N = 1; N <= nodes && n < 256; N++)
    if (P % N == 0 && P / N <= cores)
      shapes[n++] = (struct shape){N, P / N, -1};
  if (n == 0) {
    fprintf(stderr, "icsim place: no shape of %d cores fits %d nodes x %d cores\n", P, nodes, cores);
    free(sets);
    return 2;
  }
  char size_arg[32];
  snprintf(size_arg, sizeof size_arg, "%.0f", bytes);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char place[32], range[64];
    snprintf(place, sizeof place, "%dx%d", shapes[i].nodes, shapes[i].cores);
    snprintf(range, sizeof range, "%s:%s", size_arg, size_arg);
    char *a2a[] = {"alltoall_block", "-m", size_arg, "-b", (char *)block, "-i", "3", NULL};
    char *mpi[] = {"alltoall_block", "-m", size_arg, "--mpi", "-i", "3", NULL};
    char *red[] = {"osu_allreduce", "-m", range, "-i", "5", "-x", "1", NULL, false};
    struct run_request rq = {.platform = platform, .nranks = P, .place = place, .sets = sets, .nsets = nsets,
                             .host_timing = false,
                             .program = !strcmp(pattern, "alltoall") ? a2a : !strcmp(pattern, "mpi-alltoall") ? mpi : red};
    char tmp[] = "/tmp/icsim-place-XXXXXX";
    sigset_t held;
    icsim_scratch_hold(&held); /* an anonymous file: no signal between its creation and its unlinking */
    int fd = mkstemp(tmp);
    unlink(tmp);
    icsim_scratch_release(&held);
    fprintf(stderr, "[%d/%d] %s on %s ...\n", i + 1, n, pattern, place);
    int code = launch_smpirun(&rq, fd, err, sizeof err);
    double v = code == 0 ? last_value(fd) : -1;
    close(fd);
    if (code != 0 || v < 0) {
      fprintf(stderr, "icsim place: the %s run failed (%s)\n", place, code < 0 ? err : "see above");
      rc = 1;
      continue;
    }
    shapes[i].seconds = !strcmp(pattern, "allreduce") ? v * 1e-6 : v; /* osu prints us */
  }
  qsort(shapes, (size_t)n, sizeof shapes[0], by_time);
  printf("# %d cores on %s: %s, %s %s; shapes ranked by simulated time (one call)\n"
         "# rank  shape   nodes  cores/node   time (s)\n",
         P, platform, pattern, msg, strcmp(pattern, "allreduce") ? "per pair" : "vector");
  int r = 0;
  for (int i = 0; i < n; i++)
    if (shapes[i].seconds >= 0)
    {
      char shape[32];
      snprintf(shape, sizeof shape, "%dx%d", shapes[i].nodes, shapes[i].cores);
      printf("%-6d %-7s %5d %11d %12.6f\n", ++r, shape, shapes[i].nodes, shapes[i].cores, shapes[i].seconds);
    }
  free(sets);
  return rc;
}
