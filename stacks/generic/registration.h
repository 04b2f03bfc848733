/* The registration (pin-down) cache of an RDMA MPI: before the adapter may read or write a user
 * buffer directly (rendezvous, zero-copy), the buffer's pages are registered with the adapter;
 * the MPI keeps registrations and reuses them when the same buffer comes back (MVAPICH2's lazy
 * deregistration), evicting the least recently used one when the cache is full. */
#ifndef ICSIM_GENERIC_REGISTRATION_H
#define ICSIM_GENERIC_REGISTRATION_H

#include <stddef.h>
#include <stdint.h>

struct reg_entry {
  uintptr_t lo, hi; /* registered pages [lo, hi) */
  uint64_t used;    /* last use, for LRU */
};

struct reg_cache {
  struct reg_entry *e;
  int n, cap;
  uint64_t clock;
};

/* BUF..BUF+LEN used for RDMA by one rank: 0 when a registration covers it (a hit), else the
 * number of PAGE-byte pages registered now (the region rounded out to whole pages), evicting the
 * least recently used registration when CAPACITY are held. */
double reg_cache_use(struct reg_cache *c, int capacity, const void *buf, size_t len, double page);
void reg_cache_free(struct reg_cache *c);

#endif
