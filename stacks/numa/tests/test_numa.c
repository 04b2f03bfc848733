/* numa stack: the memory-controller sharing function, values worked out by hand. */
#include <criterion/criterion.h>
#include <math.h>

#include "numa.h"

Test(numa, saturation_without_cache)
{
  struct numa_params p = {.stream_bw_Bps = 1e9, .sharpness = 2, .cache_B = 0, .cache_bw_Bps = 10e9};
  /* one copy demands 2 GB/s of bus; with B = 4 GB/s: bus = (2^-2 + 4^-2)^-1/2 GB/s = 1.78885 GB/s,
   * of which half is copied bytes */
  cr_assert_float_eq(numa_memory_capacity(&p, 4e9, 1, 1e6), 1.788854382e9 / 2, 1e3);
  /* two copies demand 4 GB/s: bus = (4^-2 + 4^-2)^-1/2 = 2.828427 GB/s, copied 1.414214 GB/s */
  cr_assert_float_eq(numa_memory_capacity(&p, 4e9, 2, 1e6), 2.828427125e9 / 2, 1e3);
  /* a sharp controller (p = 64) is almost min(demand, B): 4 copies -> 4 GB/s bus, 2 GB/s copied */
  p.sharpness = 64;
  cr_assert(fabs(numa_memory_capacity(&p, 4e9, 4, 1e6) - 2e9) < 0.03e9);
}

Test(numa, cache_residency)
{
  struct numa_params p = {.stream_bw_Bps = 1e9, .sharpness = 2, .cache_B = 1048576, .cache_bw_Bps = 10e9};
  /* 2 copies of 256 KiB: working set 2 x 2 x 256 KiB = 1 MiB fits: all from the cache */
  cr_assert_float_eq(numa_memory_capacity(&p, 4e9, 2, 262144), 2 * 10e9, 1e3);
  /* 4 copies: 2 MiB, h = (1/2)^3 = 1/8; bus(4) = (8^-2 + 4^-2)^-1/2 GB/s = 3.577709 GB/s;
   * per copy 1 / (0.125 / 10 + 0.875 x 8 / 3.577709) GB/s */
  double per = 1 / (0.125 / 10e9 + 0.875 * 8 / 3.577708764e9);
  cr_assert_float_eq(numa_memory_capacity(&p, 4e9, 4, 262144), 4 * per, 1e3);
}

Test(numa, socket_link_interleaving)
{
  struct numa_params p = {.qpi_stream_Bps = 0, .qpi_sharpness = 4};
  /* no interleaving rate configured: SimGrid's fair sharing (negative answer) */
  cr_assert(numa_socket_link_capacity(&p, 8e9, 3) < 0);
  p.qpi_stream_Bps = 2e9;
  /* a lone stream gets the whole link */
  cr_assert_float_eq(numa_socket_link_capacity(&p, 8e9, 1), 8e9, 1);
  /* two interleaved streams demand 4 GB/s of an 8 GB/s link:
   * 8 x ((4/8)^-4 + 1)^(-1/4) = 8 x 17^(-1/4) = 3.939832 GB/s */
  cr_assert_float_eq(numa_socket_link_capacity(&p, 8e9, 2), 3.939832e9, 1e3);
  /* four: demand = C, so 8 x 2^(-1/4) = 6.727171 GB/s */
  cr_assert_float_eq(numa_socket_link_capacity(&p, 8e9, 4), 6.727171e9, 1e3);
}

Test(numa, half_copies)
{
  struct numa_params p = {.stream_bw_Bps = 1e9, .sharpness = 2, .cache_B = 0, .cache_bw_Bps = 10e9};
  /* two transfers crossing the sockets put one read or one write each on this controller:
   * as much bus demand as one copy (2 GB/s), so together they move twice one copy's rate */
  cr_assert_float_eq(2 * numa_memory_capacity(&p, 4e9, 1.0, 1e6), 1.788854382e9, 1e3);
  /* half a copy alone: demand 1 GB/s, bus (1^-2 + 4^-2)^-1/2 = 0.970143 GB/s, copied half */
  cr_assert_float_eq(numa_memory_capacity(&p, 4e9, 0.5, 1e6), 0.970142500e9 / 2, 1e3);
}

Test(numa, adapter_connections)
{
  struct numa_params p = {.adapter_stream_Bps = 0};
  /* no per-connection rate configured: plain fair sharing */
  cr_assert(numa_adapter_capacity(&p, 125e6, 4) < 0);
  p.adapter_stream_Bps = 100e6; /* one connection reaches 100 MB/s of a 125 MB/s link */
  cr_assert_float_eq(numa_adapter_capacity(&p, 125e6, 1), 100e6, 1);
  /* two connections would carry 200 MB/s: the link's 125 MB/s bounds them */
  cr_assert_float_eq(numa_adapter_capacity(&p, 125e6, 2), 125e6, 1);
  /* slowdown of 5 sharers against one: (5 x 1 / 125e6) / (1 / 100e6) = 4 */
  double t1 = 1 / numa_adapter_capacity(&p, 125e6, 1), t5 = 5 / numa_adapter_capacity(&p, 125e6, 5);
  cr_assert_float_eq(t5 / t1, 4.0, 1e-12);
}

Test(numa, copies_at_once_count_cores)
{
  /* osu_bw's window: 64 transfers on the channel, all copied by one receiving core: one copy at once */
  cr_assert_float_eq(numa_copies_at_once(64, 1, 64), 1, 0);
  /* three cores each receiving three messages: three copies at once */
  cr_assert_float_eq(numa_copies_at_once(9, 3, 9), 3, 0);
  /* two transfers the stack was not told of (SMPI's own) count a copy each */
  cr_assert_float_eq(numa_copies_at_once(6, 1, 4), 3, 0);
  /* never more copies than transfers, never fewer than one while any flows */
  cr_assert_float_eq(numa_copies_at_once(2, 5, 5), 2, 0);
  cr_assert_float_eq(numa_copies_at_once(3, 0, 3), 1, 0);
}

/* numa/cache-recency's LRU stack of buffers (cache_lru.h): values worked out by hand. */
#include "cache_lru.h"

#define MiB 1048576.0

/* An ideal LRU cache of *CTX bytes: a range swept again is all there while its distance fits. */
static double lru_step(const void *ctx, double dist) { return dist <= *(const double *)ctx ? 1 : 0; }

/* numa's cache (numa_cache_share) with the numa_params *CTX */
static double cube(const void *ctx, double dist) { return numa_cache_share(ctx, dist); }

/* osu_bw's window: 64 messages copied from one send buffer into one receive buffer, window after
 * window. After the first copy the two buffers are the stack's top group, L = 2 MiB: each later copy
 * comes back at distance 0 + 2 MiB <= 12 MiB and finds both resident, however many are in flight;
 * numa's cache too (2 MiB fits: share 1). */
Test(numa_lru, one_buffer_copied_repeatedly_stays_resident)
{
  struct numa_lru l;
  numa_lru_init(&l);
  const double C = 12 * MiB;
  struct numa_params p = {.cache_B = C};
  const uintptr_t s = 0x100000, r = 0x900000, m = 1048576;
  double in_s, in_d, cs, cd;
  for (int w = 0; w < 3; w++)
    for (int i = 0; i < 64; i++) {
      numa_lru_copy_resident(&l, 0, s, s + m, 1, r, r + m, lru_step, &C, &in_s, &in_d);
      numa_lru_copy_resident(&l, 0, s, s + m, 1, r, r + m, cube, &p, &cs, &cd);
      double expect = w || i ? m : 0; /* the first copy finds nothing: never touched */
      cr_assert(in_s == expect && in_d == expect && cs == expect && cd == expect, "window %d copy %d: %g %g %g %g", w, i,
                in_s, in_d, cs, cd);
      numa_lru_copy_touch(&l, 0, s, s + m, 1, r, r + m);
    }
  cr_assert_eq(l.n, 2); /* the same two ranges, whatever the number of copies */
  /* the address spaces are apart: rank 1's range at rank 0's send buffer address was never touched */
  numa_lru_copy_resident(&l, 1, s, s + m, 0, r, r + m, lru_step, &C, &in_s, &in_d);
  cr_assert(in_s == 0 && in_d == 0);
  numa_lru_free(&l);
}

/* The block all-to-all of 1 MiB among p = 4 ranks of one socket, as alltoall_block does it: in step
 * j each rank r receives block (r + j) % p of its receive buffer from rank (r + j) % p, whose send
 * buffer's block r is the source. One all-to-all touches 4 ranks x 4 copies x 2 MiB = 32 distinct
 * MiB. A block's copy comes back one all-to-all later, at distance 30 MiB (the 15 other copies'
 * groups) + 2 MiB (its own group) = 32 MiB: beyond a 12 MiB LRU, which keeps none of it, though the
 * 4 copies in flight (8 MiB) would fit; numa's cache keeps (12 / 32)^3 = 5.27% of each. */
Test(numa_lru, all_to_all_larger_than_the_cache_streams)
{
  struct numa_lru l;
  numa_lru_init(&l);
  const double C = 12 * MiB, h = pow(12.0 / 32, 3);
  struct numa_params np = {.cache_B = C};
  const int p = 4;
  const uintptr_t m = 1048576, sbuf = 0x10000000, rbuf = 0x20000000; /* each rank's, in its own space */
  for (int it = 0; it < 3; it++)
    for (int j = 0; j < p; j++)
      for (int r = 0; r < p; r++) {
        int from = (r + j) % p;
        uintptr_t src = sbuf + (uintptr_t)r * m, dst = rbuf + (uintptr_t)from * m;
        double in_s, in_d, cs, cd;
        numa_lru_copy_resident(&l, from, src, src + m, r, dst, dst + m, lru_step, &C, &in_s, &in_d);
        numa_lru_copy_resident(&l, from, src, src + m, r, dst, dst + m, cube, &np, &cs,
                               &cd);
        cr_assert(in_s == 0 && in_d == 0, "all-to-all %d step %d rank %d: %g + %g bytes resident", it, j, r, in_s, in_d);
        double expect = it ? h * m : 0; /* the first all-to-all: never touched */
        cr_assert(fabs(cs - expect) < 1e-6 && fabs(cd - expect) < 1e-6, "all-to-all %d step %d rank %d: %g, %g", it, j, r,
                  cs, cd);
        numa_lru_copy_touch(&l, from, src, src + m, r, dst, dst + m);
      }
  cr_assert_eq(l.n, 32); /* 16 blocks x 2 ranges, each one range however often touched */
  numa_lru_free(&l);
}

/* LRU on a cyclic sweep is all or nothing: a copy of m into another m again and again (2m swept)
 * stays resident while 2m <= C and finds nothing once 2m > C (each byte comes back at distance 2m);
 * two copies taking turns come back at 2 x 2m. */
Test(numa_lru, cyclic_sweep_all_or_nothing)
{
  const uintptr_t m = 1048576, A = 0, B = 4 * m, C = 8 * m, D = 12 * m;
  double in_s, in_d;
  for (int k = 0; k < 2; k++) {
    struct numa_lru l;
    numa_lru_init(&l);
    double cap = k ? 1.9 * MiB : 2 * MiB;
    numa_lru_copy_touch(&l, 0, A, A + m, 0, B, B + m);
    numa_lru_copy_resident(&l, 0, A, A + m, 0, B, B + m, lru_step, &cap, &in_s, &in_d);
    cr_assert_float_eq(in_s + in_d, k ? 0 : 2 * m, 1e-6, "cache %g: %g", cap, in_s + in_d);
    numa_lru_free(&l);
  }
  for (int k = 0; k < 2; k++) {
    struct numa_lru l;
    numa_lru_init(&l);
    double cap = k ? 3.9 * MiB : 4 * MiB;
    numa_lru_copy_touch(&l, 0, A, A + m, 0, B, B + m);
    numa_lru_copy_touch(&l, 1, C, C + m, 1, D, D + m);
    numa_lru_copy_resident(&l, 0, A, A + m, 0, B, B + m, lru_step, &cap, &in_s, &in_d);
    cr_assert_float_eq(in_s + in_d, k ? 0 : 2 * m, 1e-6, "two copies, cache %g: %g", cap, in_s + in_d);
    numa_lru_free(&l);
  }
}

/* Bytes new to the stack: after A -> B (1 MiB each), copying A into a fresh D: A's group comes back
 * at 2 MiB, and the copy brings D's 1 MiB: A is at distance 3 MiB, D nowhere (0). A 3 MiB LRU keeps
 * A, one of 2.9 MiB none of it; numa's cache of 2 MiB keeps (2/3)^3 = 29.6% of it. A range touched
 * again in part leaves its old group in part: copying A's first half into D's first half, then A's
 * second half (still in {A, B}, now below the 1 MiB group {A head, D head}) comes back at
 * 1 + 1.5 MiB, with B's first half in that same group (nothing new): 2.5 MiB. */
Test(numa_lru, distance_with_new_bytes_and_parts)
{
  struct numa_lru l;
  numa_lru_init(&l);
  const uintptr_t m = 1048576, A = 0, B = 4 * m, D = 12 * m;
  double in_s, in_d, cap = 3 * MiB;
  struct numa_params p = {.cache_B = 2 * MiB};
  numa_lru_copy_touch(&l, 0, A, A + m, 1, B, B + m);
  numa_lru_copy_resident(&l, 0, A, A + m, 1, D, D + m, lru_step, &cap, &in_s, &in_d);
  cr_assert(in_s == m && in_d == 0, "%g %g", in_s, in_d);
  cap = 2.9 * MiB;
  numa_lru_copy_resident(&l, 0, A, A + m, 1, D, D + m, lru_step, &cap, &in_s, &in_d);
  cr_assert(in_s == 0 && in_d == 0, "%g %g", in_s, in_d);
  numa_lru_copy_resident(&l, 0, A, A + m, 1, D, D + m, cube, &p, &in_s, &in_d);
  cr_assert_float_eq(in_s, pow(2.0 / 3, 3) * m, 1e-6, "%g", in_s);
  numa_lru_copy_touch(&l, 0, A, A + m / 2, 1, D, D + m / 2);
  cr_assert_eq(l.n, 4);
  cap = 2.5 * MiB;
  numa_lru_copy_resident(&l, 0, A + m / 2, A + m, 1, B, B + m / 2, lru_step, &cap, &in_s, &in_d);
  cr_assert(in_s == m / 2 && in_d == m / 2, "%g %g", in_s, in_d);
  cap = 2.4 * MiB;
  numa_lru_copy_resident(&l, 0, A + m / 2, A + m, 1, B, B + m / 2, lru_step, &cap, &in_s, &in_d);
  cr_assert(in_s == 0 && in_d == 0, "%g %g", in_s, in_d);
  numa_lru_free(&l);
}

/* A copy with a share h of its bytes resident pays h at the cache rate and 1 - h at the memory
 * rate: one copy, s = 1 GB/s, r_c = 10 GB/s, a controller that never saturates (p = 64, B = 1 TB/s:
 * bus = 2s): rate = 1 / (h / r_c + (1 - h) / s); h = 0.5: 1 / (0.05 + 0.5) ns/B = 1.818182 GB/s. */
Test(numa_lru, resident_share_prices_the_copy)
{
  struct numa_params p = {.stream_bw_Bps = 1e9, .sharpness = 64, .cache_B = 0, .cache_bw_Bps = 10e9};
  cr_assert_float_eq(numa_memory_capacity_resident(&p, 1e12, 1, 0.5), 1 / (0.05e-9 + 0.5e-9), 1e3);
  cr_assert_float_eq(numa_memory_capacity_resident(&p, 1e12, 1, 1), 10e9, 1e3);
  cr_assert_float_eq(numa_memory_capacity_resident(&p, 1e12, 1, 0), 1e9, 1e3);
}
