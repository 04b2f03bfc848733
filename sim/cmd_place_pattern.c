/* icsim place --pattern-file: which rank -> node mapping suits a recorded communication pattern.
 * The platform's layer that places patterns (stack.h, place_pattern: the one that recorded it)
 * proposes candidate mappings with its own costs; each candidate's traffic is then replayed in a
 * simulation (workload pattern_replay) and the candidates are printed ranked by simulated time,
 * the best optionally written by that layer as a configuration file for `icsim run --place`. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "cli.h"
#include "outfile.h"
#include "platform.h"

struct ranked {
  const struct icsim_place_candidate *c;
  double seconds;
  int order;
};

static int by_time(const void *a, const void *b)
{
  const struct ranked *x = a, *y = b;
  if (x->seconds != y->seconds)
    return x->seconds < y->seconds ? -1 : 1;
  if (x->c->merit != y->c->merit)
    return x->c->merit < y->c->merit ? -1 : 1;
  return x->order - y->order;
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

static char *node_list(const int *node_of, int n)
{
  size_t cap = (size_t)n * 12 + 1, len = 0;
  char *s = malloc(cap);
  s[0] = '\0';
  for (int r = 0; r < n; r++)
    len += (size_t)snprintf(s + len, cap - len, "%s%d", r ? "," : "", node_of[r]);
  return s;
}

/* The first of PF's layers that places patterns, or NULL with ERR naming the layers and the
 * registered stacks that would. */
static const struct icsim_stack_ops *placer(const struct icsim_platform *pf, char *err, size_t errlen)
{
  for (int i = 0; i < pf->nlayers; i++)
    if (pf->layer[i]->place_pattern)
      return pf->layer[i];
  char layers[512] = "", offer[512] = "";
  for (int i = 0; i < pf->nlayers; i++)
    snprintf(layers + strlen(layers), sizeof layers - strlen(layers), "%s%s", i ? ", " : "", pf->layer[i]->name);
  for (size_t i = 0; i < icsim_stack_count(); i++)
    if (icsim_stack_at(i)->place_pattern)
      snprintf(offer + strlen(offer), sizeof offer - strlen(offer), "%s%s", offer[0] ? ", " : "",
               icsim_stack_at(i)->name);
  if (offer[0])
    snprintf(err, errlen,
             "--pattern-file: no layer of %s (layers: %s) places a recorded pattern; pattern placement is offered by "
             "%s: record the pattern and place it on a platform with that layer",
             pf->path, layers, offer);
  else
    snprintf(err, errlen, "--pattern-file: no layer of %s (layers: %s) places a recorded pattern, and no stack of "
             "this icsim offers pattern placement", pf->path, layers);
  return NULL;
}

int cmd_place_pattern(const char *platform, int P, const char *pattern_file, const char *write_best, unsigned seed,
                      char **sets, int nsets)
{
  char err[2048];
  struct icsim_platform pf;
  if (icsim_platform_load(&pf, platform, sets, nsets, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    return 2;
  }
  const struct icsim_stack_ops *ops = placer(&pf, err, sizeof err);
  struct icsim_place_plan pl = {.pf = &pf, .platform = platform, .pattern_file = pattern_file, .nranks = P,
                                .seed = seed};
  if (!ops || ops->place_pattern(&pl, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    icsim_place_plan_clear(&pl);
    icsim_platform_free(&pf);
    return 2;
  }
  /* the target of --write-best, now that the inputs are read (platform, pattern: paths.h): refused
   * before any replay runs, not after them */
  if (write_best && icsim_output_check("--write-best", write_best, err, sizeof err)) {
    fprintf(stderr, "icsim place: %s\n", err);
    icsim_place_plan_clear(&pl);
    icsim_platform_free(&pf);
    return 2;
  }
  int n = pl.n;
  char *abs = realpath(pattern_file, NULL);
  struct ranked rk[ICSIM_PLACE_MAX_CANDIDATES];
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char *place = node_list(pl.cand[i].node_of, P);
    char *prog[] = {"pattern_replay", abs, NULL};
    struct run_request rq = {.platform = platform, .nranks = P, .place = place, .sets = sets, .nsets = nsets,
                             .host_timing = false, .program = prog};
    char tmp[] = "/tmp/icsim-place-XXXXXX";
    sigset_t held;
    icsim_scratch_hold(&held); /* an anonymous file: no signal between its creation and its unlinking */
    int fd = mkstemp(tmp);
    unlink(tmp);
    icsim_scratch_release(&held);
    fprintf(stderr, "[%d/%d] %s: %s %s ...\n", i + 1, n, pl.cand[i].name, pl.node_word, place);
    int code = launch_smpirun(&rq, fd, err, sizeof err);
    double v = code == 0 ? replay_time(fd) : -1;
    close(fd);
    free(place);
    if (code != 0 || v < 0) {
      fprintf(stderr, "icsim place: the replay of mapping %s failed (%s)\n", pl.cand[i].name,
              code < 0 ? err : "see above");
      rc = 1;
    }
    rk[i] = (struct ranked){&pl.cand[i], v < 0 ? 1e300 : v, i};
  }
  free(abs);
  qsort(rk, (size_t)n, sizeof rk[0], by_time);
  printf("%s# rank  mapping              time (s)%s  %s (rank 0, 1, ...)\n", pl.legend, pl.cost_heads, pl.node_word);
  for (int i = 0; i < n; i++) {
    char *nodes = node_list(rk[i].c->node_of, P);
    if (rk[i].seconds < 1e300)
      printf("%-6d %-18s %12.9f%s  %s\n", i + 1, rk[i].c->name, rk[i].seconds, rk[i].c->costs, nodes);
    free(nodes);
  }
  if (write_best && rc == 0 && n > 0) {
    char comment[1024];
    snprintf(comment, sizeof comment, "written by icsim place --pattern-file %s on %s: mapping %s, replay %.9f s, %s",
             pattern_file, platform, rk[0].c->name, rk[0].seconds, rk[0].c->summary);
    if (pl.write_best(&pl, (int)(rk[0].c - pl.cand), write_best, comment, err, sizeof err)) {
      fprintf(stderr, "icsim place: --write-best: %s\n", err);
      rc = 1;
    } else
      fprintf(stderr, "icsim place: wrote %s (icsim run --place %s)\n", write_best, write_best);
  } else if (write_best && n > 0)
    fprintf(stderr, "icsim place: %s not written: a replay failed\n", write_best);
  icsim_place_plan_clear(&pl);
  icsim_platform_free(&pf);
  return rc;
}
