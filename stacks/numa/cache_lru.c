/* numa: an LRU stack of address ranges per last-level cache (see cache_lru.h). */
#include "cache_lru.h"

#include <stdlib.h>
#include <string.h>

/* Ranges kept at most: below the cache's size in bytes, a stack of many small ranges (eager
 * messages of a few bytes) is cut here; its oldest small ranges then count as evicted early. */
#define NUMA_LRU_MAX_RANGES 4096

void numa_lru_init(struct numa_lru *l, double capacity_B) { *l = (struct numa_lru){.capacity_B = capacity_B}; }

void numa_lru_free(struct numa_lru *l)
{
  free(l->r);
  l->r = NULL;
  l->n = l->cap = 0;
}

static double len(const struct numa_range *r) { return (double)(r->hi - r->lo); }

double numa_lru_resident(const struct numa_lru *l, int space, uintptr_t lo, uintptr_t hi)
{
  double d = 0, res = 0;
  for (int i = 0; i < l->n && d < l->capacity_B; i++) {
    const struct numa_range *r = &l->r[i];
    double n = len(r);
    if (r->space == space && r->lo < hi && lo < r->hi) {
      double share = (l->capacity_B - d) / n; /* the part of R whose stack distance is below C */
      uintptr_t a = r->lo > lo ? r->lo : lo, b = r->hi < hi ? r->hi : hi;
      res += (double)(b - a) * (share < 1 ? share : 1);
    }
    d += n;
  }
  return res;
}

/* Room for N ranges. Returns 0 when out of memory. */
static int reserve(struct numa_lru *l, int n)
{
  if (n <= l->cap)
    return 1;
  int cap = l->cap ? 2 * l->cap : 16;
  while (cap < n)
    cap *= 2;
  struct numa_range *r = realloc(l->r, (size_t)cap * sizeof *r);
  if (!r)
    return 0;
  l->r = r;
  l->cap = cap;
  return 1;
}

void numa_lru_touch(struct numa_lru *l, int space, uintptr_t lo, uintptr_t hi)
{
  if (hi <= lo)
    return;
  /* take [lo, hi) out of the ranges that hold part of it: each keeps its parts outside (at most two) */
  for (int i = 0; i < l->n; i++) {
    struct numa_range *r = &l->r[i];
    if (r->space != space || r->hi <= lo || hi <= r->lo)
      continue;
    struct numa_range left = {space, r->lo, lo}, right = {space, hi, r->hi};
    int keep_l = r->lo < lo, keep_r = hi < r->hi;
    if (keep_l && keep_r) {
      if (!reserve(l, l->n + 1))
        return;
      r = &l->r[i];
      memmove(r + 1, r, (size_t)(l->n - i) * sizeof *r);
      l->n++;
      l->r[i] = left;
      l->r[i + 1] = right;
      i++;
    } else if (keep_l || keep_r) {
      *r = keep_l ? left : right;
    } else {
      memmove(r, r + 1, (size_t)(l->n - i - 1) * sizeof *r);
      l->n--;
      i--;
    }
  }
  if (!reserve(l, l->n + 1))
    return;
  memmove(l->r + 1, l->r, (size_t)l->n * sizeof *l->r);
  l->r[0] = (struct numa_range){space, lo, hi};
  l->n++;
  /* drop what lies wholly beyond the cache, and the oldest ranges beyond the bound */
  double d = 0;
  int keep = 0;
  while (keep < l->n && d < l->capacity_B && keep < NUMA_LRU_MAX_RANGES)
    d += len(&l->r[keep++]);
  l->n = keep;
}
