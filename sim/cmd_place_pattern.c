/* icsim place --pattern-file: the SMPO configuration file's question (Vargin et al. 2004). A
 * pattern recorded from a run (`--set smpo/record-pattern=FILE`) is costed under candidate
 * rank -> module mappings (stacks/smpo/mapping.c: structured ones and a seeded local search on
 * transit hops); each candidate's traffic is then replayed in a simulation (workload
 * pattern_replay) and the candidates are printed ranked by simulated time, the best optionally
 * written as a configuration file for `icsim run --place`. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "cli.h"
#include "mapping.h"
#include "placement_file.h"
#include "platform.h"

struct ranked {
  struct smpo_candidate *c;
  double seconds;
  int order;
};

static int by_time(const void *a, const void *b)
{
  const struct ranked *x = a, *y = b;
  if (x->seconds != y->seconds)
    return x->seconds < y->seconds ? -1 : 1;
  int k = smpo_mapping_cost_cmp(&x->c->cost, &y->c->cost);
  return k ? k : x->order - y->order;
}

/* The replay's time: the last number of its last data line. */
static double replay_time(int fd)
{
  char buf[8192];
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  double v = -1;
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
    if (line[0] != '#') {
      char *last = strrchr(line, ' ');
      v = atof(last ? last + 1 : line);
    }
  return v;
}

static char *module_list(const int *map, int n)
{
  size_t cap = (size_t)n * 12 + 1, len = 0;
  char *s = malloc(cap);
  s[0] = '\0';
  for (int r = 0; r < n; r++)
    len += (size_t)snprintf(s + len, cap - len, "%s%d", r ? "," : "", map[r]);
  return s;
}

int cmd_place_pattern(const char *platform, int P, const char *pattern_file, const char *write_best, unsigned seed,
                      char **sets, int nsets)
{
  char err[2048];
  struct smpo_pattern pat;
  if (smpo_pattern_read(pattern_file, &pat, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    return 2;
  }
  struct icsim_platform pf;
  if (icsim_platform_load(&pf, platform, sets, nsets, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    smpo_pattern_free(&pat);
    return 2;
  }
  struct smpo_routes routes;
  smpo_routes_init(&routes, &pf);
  int per_module = pf.p.sockets * pf.p.cores_per_socket;
  icsim_platform_free(&pf);
  struct smpo_candidate cand[SMPO_MAX_CANDIDATES];
  int n = smpo_mapping_candidates(&pat, &routes, P, per_module, seed, cand, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "icsim place: %s: %s\n", pattern_file, err);
    smpo_routes_free(&routes);
    smpo_pattern_free(&pat);
    return 2;
  }
  char *abs = realpath(pattern_file, NULL);
  struct ranked rk[SMPO_MAX_CANDIDATES];
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char *place = module_list(cand[i].module_of, P);
    char *prog[] = {"pattern_replay", abs, NULL};
    struct run_request rq = {.platform = platform, .nranks = P, .place = place, .sets = sets, .nsets = nsets,
                             .host_timing = false, .program = prog};
    char tmp[] = "/tmp/icsim-place-XXXXXX";
    sigset_t held;
    icsim_scratch_hold(&held); /* an anonymous file: no signal between its creation and its unlinking */
    int fd = mkstemp(tmp);
    unlink(tmp);
    icsim_scratch_release(&held);
    fprintf(stderr, "[%d/%d] %s: modules %s ...\n", i + 1, n, cand[i].name, place);
    int code = launch_smpirun(&rq, fd, err, sizeof err);
    double v = code == 0 ? replay_time(fd) : -1;
    close(fd);
    free(place);
    if (code != 0 || v < 0) {
      fprintf(stderr, "icsim place: the replay of mapping %s failed (%s)\n", cand[i].name, code < 0 ? err : "see above");
      rc = 1;
    }
    rk[i] = (struct ranked){&cand[i], v < 0 ? 1e300 : v, i};
  }
  free(abs);
  qsort(rk, (size_t)n, sizeof rk[0], by_time);
  printf("# %d ranks of the pattern %s on %s (%d per module): candidate mappings ranked by the simulated\n"
         "# time of the replayed pattern; transit hops = messages x transit modules between their modules\n"
         "# rank  mapping              time (s)   transit_hops  net_messages  shm_messages  modules (rank 0, 1, ...)\n",
         P, pattern_file, platform, per_module);
  for (int i = 0; i < n; i++) {
    char *mods = module_list(rk[i].c->module_of, P);
    if (rk[i].seconds < 1e300)
      printf("%-6d %-18s %12.9f %13.0f %13.0f %13.0f  %s\n", i + 1, rk[i].c->name, rk[i].seconds,
             rk[i].c->cost.transit_hops, rk[i].c->cost.net_messages, rk[i].c->cost.shm_messages, mods);
    free(mods);
  }
  if (write_best && rc == 0) {
    char comment[1024];
    snprintf(comment, sizeof comment,
             "written by icsim place --pattern-file %s on %s: mapping %s, replay %.9f s, %.0f transit hops", pattern_file,
             platform, rk[0].c->name, rk[0].seconds, rk[0].c->cost.transit_hops);
    if (icsim_placement_file_write(write_best, rk[0].c->module_of, P, comment, err, sizeof err)) {
      fprintf(stderr, "icsim place: --write-best: %s\n", err);
      rc = 1;
    } else
      fprintf(stderr, "icsim place: wrote %s (icsim run --place %s)\n", write_best, write_best);
  } else if (write_best)
    fprintf(stderr, "icsim place: %s not written: a replay failed\n", write_best);
  smpo_candidates_free(cand, n);
  smpo_routes_free(&routes);
  smpo_pattern_free(&pat);
  return rc;
}
