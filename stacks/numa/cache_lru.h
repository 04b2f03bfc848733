/* numa: which bytes of a copy's buffers are still in a last-level cache, from the buffers the
 * program's transfers touched (numa/cache-recency).
 *
 * An LRU cache of C bytes holds a byte exactly when the distinct bytes touched since its last
 * touch, its stack distance, fit in C (R.L. Mattson, J. Gecsei, D.R. Slutz, I.L. Traiger,
 * "Evaluation techniques for storage hierarchies", IBM Systems Journal 9(2), 1970, 78-117: the LRU
 * stack). Here the unit is a buffer, not a line: the stack holds address ranges (an address space,
 * a start, an end), most recent first, disjoint (a range touched again leaves its old place). A copy
 * touches its source and destination together, front to back, interleaved: its two ranges are one
 * group of the stack, of L bytes. A byte of a group with D bytes above the group has, when it is
 * copied again, distance D + L: the bytes of its group touched after it last time, those of the new
 * copy touched before it, and the D above (each byte once); the copy's other buffer, where it is new
 * to the stack (above no part of this group), adds its bytes too (counted whole). What share of a
 * range at that distance is still cached is the caller's (SHARE): an ideal LRU keeps all of a range
 * swept again while its distance is at most the cache and none beyond (all or nothing on a cyclic
 * sweep); numa's cache thins out gradually (numa_cache_share). Bytes never touched are not cached. */
#ifndef ICSIM_NUMA_CACHE_LRU_H
#define ICSIM_NUMA_CACHE_LRU_H

#include <stdint.h>

/* Ranges kept at most: a bound on the work per copy (a walk of the stack), not a property of the
 * cache; with groups of 1 MiB it reaches some 2 GiB, far beyond any share a cache of tens of MiB
 * keeps. Many small ranges (eager messages of a few bytes) reach it sooner: their oldest then count
 * as evicted early. */
#define NUMA_LRU_MAX_RANGES 4096

struct numa_range {
  int space;          /* the address space: the rank whose buffer it is */
  uintptr_t lo, hi;   /* [lo, hi) */
  uint64_t group;     /* the touch (copy) it came from: a copy's two ranges share one */
};

struct numa_lru {
  struct numa_range *r; /* most recent first */
  int n, cap;
  uint64_t touches;
};

/* An empty stack. */
void numa_lru_init(struct numa_lru *l);
void numa_lru_free(struct numa_lru *l);
/* The share of a range still cached when it comes back at stack distance DIST bytes. */
typedef double numa_lru_share(const void *ctx, double dist);
/* A copy of [S_LO, S_HI) of space S into [D_LO, D_HI) of space D is about to run: the bytes of each
 * it will find in the cache (*SRC_B, *DST_B), SHARE(CTX, distance) of each part found in the stack. */
void numa_lru_copy_resident(const struct numa_lru *l, int s, uintptr_t s_lo, uintptr_t s_hi, int d, uintptr_t d_lo,
                            uintptr_t d_hi, numa_lru_share *share, const void *ctx, double *src_B, double *dst_B);
/* The copy ran: both ranges become the most recent group. The stack keeps its NUMA_LRU_MAX_RANGES
 * most recent ranges (whole groups); older ones count as never touched. */
void numa_lru_copy_touch(struct numa_lru *l, int s, uintptr_t s_lo, uintptr_t s_hi, int d, uintptr_t d_lo,
                         uintptr_t d_hi);

#endif
