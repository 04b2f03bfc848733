/* Rank -> module mappings of a recorded communication pattern (`icsim place --pattern-file`):
 * the question the SMPO configuration file answers (Vargin et al. 2004: put intensively
 * communicating processes physically close, over the fewest routes and transit hops). Here the
 * pattern is read, candidate mappings are built (structured ones and a seeded local search) and
 * each is costed in transit hops from the platform's routes; `icsim place` then times them. */
#ifndef SMPO_MAPPING_H
#define SMPO_MAPPING_H

#include <stddef.h>

#include "smpo.h"

/* A pattern as `--set smpo/record-pattern=FILE` writes it: "src dst messages bytes" per line. */
struct smpo_pattern_pair {
  int src, dst;
  double messages, bytes;
};
struct smpo_pattern {
  int nranks; /* 1 + the highest rank named */
  int npairs;
  struct smpo_pattern_pair *pair;
};
/* Returns 0, or -1 with "PATH:LINE:COLUMN: what is wrong; the fix" in ERR. */
int smpo_pattern_read(const char *path, struct smpo_pattern *p, char *err, size_t errlen);
void smpo_pattern_free(struct smpo_pattern *p);

/* What a mapping costs on the module network, from the pattern alone. */
struct smpo_mapping_cost {
  double transit_hops;   /* sum over messages between modules of the transit modules crossed */
  double net_messages;   /* messages between modules (through the adapters) */
  double net_bytes;      /* their bytes */
  double shm_messages;   /* messages inside a module (shared memory) */
};
void smpo_mapping_cost(const struct smpo_pattern *p, const struct smpo_routes *r, const int *module_of,
                       struct smpo_mapping_cost *c);
/* -1, 0, 1: fewer transit hops first, then fewer messages between modules, then fewer bytes. */
int smpo_mapping_cost_cmp(const struct smpo_mapping_cost *a, const struct smpo_mapping_cost *b);

#define SMPO_MAX_CANDIDATES 8
struct smpo_candidate {
  char name[32];
  int *module_of; /* [nranks] */
  struct smpo_mapping_cost cost;
};
/* Candidate mappings of NRANKS ranks (the pattern's ranks and any others) onto R's modules, at most
 * PER_MODULE ranks on one: packed, spread, the two along a nearest-neighbour path of modules,
 * and a local search from the best of those (pairwise swaps and moves to free slots, chosen by
 * a generator seeded with SEED). Identical mappings are kept once. Returns how many were written
 * to OUT, or -1 with ERR when the ranks do not fit. */
int smpo_mapping_candidates(const struct smpo_pattern *p, const struct smpo_routes *r, int nranks, int per_module,
                            unsigned seed, struct smpo_candidate *out, char *err, size_t errlen);
void smpo_candidates_free(struct smpo_candidate *c, int n);

/* The stack's place_pattern hook (place.c, stack.h): the candidates above, for `icsim place
 * --pattern-file`, and the best written as an SMPO configuration file. */
int smpo_place_pattern(struct icsim_place_plan *pl, char *err, size_t errlen);
extern const char smpo_place_pattern_help[];

#endif
