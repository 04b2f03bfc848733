/* numa: which bytes of a buffer are still in a last-level cache, from the buffers the program's
 * transfers touched (numa/cache-recency).
 *
 * An LRU cache of C bytes holds a byte exactly when the distinct bytes touched since its last
 * touch fit in C: its stack distance is below C (R.L. Mattson, J. Gecsei, D.R. Slutz, I.L. Traiger,
 * "Evaluation techniques for storage hierarchies", IBM Systems Journal 9(2), 1970, 78-117: the
 * LRU stack and the inclusion property). Here the unit is a buffer, not a line: the stack holds
 * address ranges (an address space, a start, an end), most recent first, disjoint (a range touched
 * again leaves its old place). A range touched as one copy was touched front to back, so of a range
 * whose more recent ranges hold d bytes, the share min(1, max(0, (C - d) / len)) is still cached;
 * which part is not said (taken evenly spread when a later range overlaps only some of it). */
#ifndef ICSIM_NUMA_CACHE_LRU_H
#define ICSIM_NUMA_CACHE_LRU_H

#include <stdint.h>

struct numa_range {
  int space;          /* the address space: the rank whose buffer it is */
  uintptr_t lo, hi;   /* [lo, hi) */
};

struct numa_lru {
  double capacity_B;
  struct numa_range *r; /* most recent first */
  int n, cap;
};

/* An empty stack for a cache of CAPACITY_B bytes. */
void numa_lru_init(struct numa_lru *l, double capacity_B);
void numa_lru_free(struct numa_lru *l);
/* Bytes of [LO, HI) of SPACE still in the cache. */
double numa_lru_resident(const struct numa_lru *l, int space, uintptr_t lo, uintptr_t hi);
/* [LO, HI) of SPACE was touched: it becomes the most recent range. What falls out of the cache is
 * dropped from the stack (it can only be touched again, never found resident). */
void numa_lru_touch(struct numa_lru *l, int space, uintptr_t lo, uintptr_t hi);

#endif
