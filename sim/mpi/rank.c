/* Who is calling: the world rank of the calling rank, and per-actor slots that never move.
 * The bottom of the MPI layer: it calls nothing of the layer's own. */
#include <simgrid/actor.h>
#include <stdlib.h>

#include "layer.h"

/* One int per actor that never moves once handed out: a rank that yields (an MPI call, a CPU
 * charge) while holding the pointer finds it still valid when another rank's first use has grown
 * the table meanwhile. A realloc-ed array did not: past 17 ranks a call layer's bracketed MPI_Init wrote its
 * call depth into freed memory (pid 18 was the first to grow the table). Pages of 1024 slots. */
int *icsim_actor_int(struct icsim_actor_ints *t)
{
  size_t pid = (size_t)sg_actor_self_get_pid();
  size_t page = pid / 1024;
  if (page >= t->npages) {
    size_t n = page + 1;
    t->pages = realloc(t->pages, n * sizeof *t->pages);
    for (size_t i = t->npages; i < n; i++)
      t->pages[i] = NULL;
    t->npages = n;
  }
  if (!t->pages[page]) {
    t->pages[page] = malloc(1024 * sizeof(int));
    for (size_t i = 0; i < 1024; i++)
      t->pages[page][i] = t->init;
  }
  return &t->pages[page][pid % 1024];
}

/* World rank of the calling rank, cached by actor pid: each PMPI call costs SMPI two clock
 * syscalls, and this is asked for every message. Its actor's "rank" property (SMPI's deployment
 * sets it) gives it before MPI_Init too (a call layer's charge for MPI_Init itself). */
int icsim_my_rank(void)
{
  static struct icsim_actor_ints by_pid = {NULL, 0, -1};
  int *mine = icsim_actor_int(&by_pid);
  if (*mine < 0) {
    const char *p = sg_actor_get_property_value(sg_actor_self(), "rank");
    int r = p ? atoi(p) : -1;
    if (!p)
      PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    *mine = r;
  }
  return *mine;
}
