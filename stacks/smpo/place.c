/* `icsim place --pattern-file` for SMPO (stack.h, place_pattern): the configuration file's
 * question (Vargin et al. 2004). A pattern recorded from a run (`--set smpo/record-pattern=FILE`)
 * is costed under candidate rank -> module mappings (mapping.c: structured ones and a seeded local
 * search on transit hops); icsim then replays each candidate's traffic in a simulation and ranks
 * them by simulated time, and the best may be written here as an SMPO configuration file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "outfile.h"
#include "platform.h"

const char smpo_place_pattern_help[] =
    "Ranks candidate rank -> module mappings of a pattern recorded with --set smpo/record-pattern=FILE\n"
    "(packed, cyclic, along a path of neighbouring modules, a seeded local search on transit hops) by the\n"
    "simulated time of the replayed pattern; --write-best writes the best as a configuration file for\n"
    "icsim run --place.\n";

/* The configuration file: MPI rank -> device name, physical module (format: sim/placement_file.h,
 * which reads it back for `icsim run --place`); devices are /dev/smpoK, K counting the ranks
 * already on that module. */
static int write_conf(const struct icsim_place_plan *pl, int best, const char *path, const char *comment, char *err,
                      size_t errlen)
{
  const int *node_of = pl->cand[best].node_of;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  fprintf(f, "# SMPO configuration: MPI rank -> device name, physical module%s%s\n# rank  device      module\n",
          comment ? "\n# " : "", comment ? comment : "");
  for (int r = 0; r < pl->nranks; r++) {
    int k = 0;
    for (int q = 0; q < r; q++)
      k += node_of[q] == node_of[r];
    fprintf(f, "%-7d /dev/smpo%-3d %d\n", r, k, node_of[r]);
  }
  fclose(f);
  /* whole or not at all, an interruption leaving no temporary (outfile.c) */
  int rc = icsim_output_write("--write-best", path, text, len, err, errlen);
  free(text);
  return rc;
}

_Static_assert(SMPO_MAX_CANDIDATES <= ICSIM_PLACE_MAX_CANDIDATES, "every SMPO candidate fits the plan");

int smpo_place_pattern(struct icsim_place_plan *pl, char *err, size_t errlen)
{
  struct smpo_pattern pat;
  if (smpo_pattern_read(pl->pattern_file, &pat, err, errlen))
    return -1;
  struct smpo_routes routes;
  smpo_routes_init(&routes, pl->pf);
  int per_module = pl->pf->p.sockets * pl->pf->p.cores_per_socket;
  struct smpo_candidate cand[SMPO_MAX_CANDIDATES];
  char why[1024];
  int n = smpo_mapping_candidates(&pat, &routes, pl->nranks, per_module, pl->seed, cand, why, sizeof why);
  smpo_routes_free(&routes);
  smpo_pattern_free(&pat);
  if (n < 0) {
    snprintf(err, errlen, "%s: %s", pl->pattern_file, why);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    struct icsim_place_candidate *c = &pl->cand[i];
    const struct smpo_mapping_cost *k = &cand[i].cost;
    snprintf(c->name, sizeof c->name, "%s", cand[i].name);
    c->node_of = cand[i].module_of; /* handed over */
    cand[i].module_of = NULL;
    /* merit: how many candidates cost strictly less (smpo_mapping_cost_cmp's order) */
    c->merit = 0;
    for (int j = 0; j < n; j++)
      c->merit += smpo_mapping_cost_cmp(&cand[j].cost, k) < 0;
    snprintf(c->costs, sizeof c->costs, " %13.0f %13.0f %13.0f", k->transit_hops, k->net_messages, k->shm_messages);
    snprintf(c->summary, sizeof c->summary, "%.0f transit hops", k->transit_hops);
  }
  smpo_candidates_free(cand, n);
  pl->n = n;
  if (asprintf(&pl->legend,
               "# %d ranks of the pattern %s on %s (%d per module): candidate mappings ranked by the simulated\n"
               "# time of the replayed pattern; transit hops = messages x transit modules between their modules\n",
               pl->nranks, pl->pattern_file, pl->platform, per_module) < 0)
    pl->legend = NULL;
  pl->cost_heads = strdup("   transit_hops  net_messages  shm_messages");
  pl->node_word = "modules";
  pl->write_best = write_conf;
  if (!pl->legend || !pl->cost_heads) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}
