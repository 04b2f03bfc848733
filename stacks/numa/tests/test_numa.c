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
