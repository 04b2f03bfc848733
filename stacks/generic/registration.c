/* Registration cache (see registration.h). A linear search: MPI programs reuse a handful of
 * buffers, and MVAPICH2's cache holds at most a few thousand entries. */
#include "registration.h"

#include <math.h>
#include <stdlib.h>

double reg_cache_use(struct reg_cache *c, int capacity, const void *buf, size_t len, double page)
{
  uintptr_t a = (uintptr_t)buf, b = a + (len ? len : 1);
  c->clock++;
  for (int i = 0; i < c->n; i++)
    if (c->e[i].lo <= a && b <= c->e[i].hi) {
      c->e[i].used = c->clock;
      return 0;
    }
  uintptr_t pg = (uintptr_t)page;
  uintptr_t lo = a / pg * pg, hi = (b + pg - 1) / pg * pg;
  double pages = (double)((hi - lo) / pg);
  if (capacity <= 0)
    return pages; /* no cache: every use registers */
  int slot = c->n;
  if (c->n >= capacity) { /* evict the least recently used */
    slot = 0;
    for (int i = 1; i < c->n; i++)
      if (c->e[i].used < c->e[slot].used)
        slot = i;
  } else {
    if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 8;
      c->e = realloc(c->e, (size_t)c->cap * sizeof *c->e);
    }
    c->n++;
  }
  c->e[slot] = (struct reg_entry){lo, hi, c->clock};
  return pages;
}

void reg_cache_free(struct reg_cache *c)
{
  free(c->e);
  *c = (struct reg_cache){0};
}
