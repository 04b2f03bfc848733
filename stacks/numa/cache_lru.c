/* numa: an LRU stack of address ranges per last-level cache (see cache_lru.h). */
#include "cache_lru.h"

#include <stdlib.h>
#include <string.h>

void numa_lru_init(struct numa_lru *l) { *l = (struct numa_lru){0}; }

void numa_lru_free(struct numa_lru *l)
{
  free(l->r);
  l->r = NULL;
  l->n = l->cap = 0;
}

static double len(const struct numa_range *r) { return (double)(r->hi - r->lo); }

static double overlap(const struct numa_range *r, int space, uintptr_t lo, uintptr_t hi)
{
  if (r->space != space || r->hi <= lo || hi <= r->lo)
    return 0;
  return (double)((r->hi < hi ? r->hi : hi) - (r->lo > lo ? r->lo : lo));
}

void numa_lru_copy_resident(const struct numa_lru *l, int s, uintptr_t s_lo, uintptr_t s_hi, int d, uintptr_t d_lo,
                            uintptr_t d_hi, numa_lru_share *share, const void *ctx, double *src_B, double *dst_B)
{
  double above = 0;              /* bytes of the groups above the current one */
  double seen_s = 0, seen_d = 0; /* bytes of the two ranges in those groups and the current one */
  *src_B = *dst_B = 0;
  for (int i = 0; i < l->n;) {
    int j = i;
    double group = 0, gs = 0, gd = 0;
    for (; j < l->n && l->r[j].group == l->r[i].group; j++) {
      group += len(&l->r[j]);
      gs += overlap(&l->r[j], s, s_lo, s_hi);
      gd += overlap(&l->r[j], d, d_lo, d_hi);
    }
    seen_s += gs;
    seen_d += gd;
    /* the other range's bytes in no group down to this one are new to the stack: the copy brings
     * them in as it goes */
    if (gs > 0)
      *src_B += gs * share(ctx, above + group + ((double)(d_hi - d_lo) - seen_d));
    if (gd > 0)
      *dst_B += gd * share(ctx, above + group + ((double)(s_hi - s_lo) - seen_s));
    above += group;
    i = j;
  }
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

static void touch(struct numa_lru *l, int space, uintptr_t lo, uintptr_t hi, uint64_t g)
{
  if (hi <= lo)
    return;
  /* take [lo, hi) out of the ranges that hold part of it: each keeps its parts outside (at most two) */
  for (int i = 0; i < l->n; i++) {
    struct numa_range *r = &l->r[i];
    if (r->space != space || r->hi <= lo || hi <= r->lo)
      continue;
    struct numa_range left = {space, r->lo, lo, r->group}, right = {space, hi, r->hi, r->group};
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
  l->r[0] = (struct numa_range){space, lo, hi, g};
  l->n++;
}

void numa_lru_copy_touch(struct numa_lru *l, int s, uintptr_t s_lo, uintptr_t s_hi, int d, uintptr_t d_lo,
                         uintptr_t d_hi)
{
  uint64_t g = ++l->touches;
  touch(l, s, s_lo, s_hi, g);
  touch(l, d, d_lo, d_hi, g);
  /* keep the most recent groups, whole, up to the bound */
  int keep = 0;
  while (keep < l->n) {
    int j = keep;
    while (j < l->n && l->r[j].group == l->r[keep].group)
      j++;
    if (j > NUMA_LRU_MAX_RANGES)
      break;
    keep = j;
  }
  l->n = keep;
}
