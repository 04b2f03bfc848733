/* Machines larger than a route buffer or a stored route table, run under SimGrid: routes are
 * computed per transfer (sim/adapter.cpp), so their figures follow the hop count exactly. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define WL ICSIM_BUILD "/workloads/"
/* one link model with round numbers: 10 us per link, 100 MB/s, overheads 2 + 3 us; store and
 * forward off so that a switch adds only its latency */
#define PINGPONG ICSIM_SRC "/tests/data/pingpong-2node.yaml"
#define SETS " --set generic/store-and-forward=false --set network/switch-latency=1us --host-timing off "

static void check(const char *out, int links, int routers)
{
  const double o = 2e-6 + 3e-6, link = 10e-6, sw = 1e-6, bw = 100e6;
  long sizes[] = {0, 1024};
  for (int i = 0; i < 2; i++) {
    double expect = o + links * link + routers * sw + (sizes[i] + 16) / bw;
    double sim = row_value(out, sizes[i]) * 1e-6;
    printf("%d links, %d routers, %5ld B: simulated %8.2f us, closed form %8.2f us\n", links, routers, sizes[i],
           sim * 1e6, expect * 1e6);
    cr_assert(fabs(sim - expect) <= 0.006e-6, "%ld B: %.3f vs %.3f us", sizes[i], sim * 1e6, expect * 1e6);
  }
}

Test(platform_e2e, ring_of_66_half_way_round)
{
  /* issue 18: node 0 -> 33 is 33 links and 32 routers, 65 hops, which overflowed a 64-hop buffer */
  char *out;
  int rc = run(ICSIM " run -p " PINGPONG SETS "--set network/topology=ring --set nodes/count=66 -n 2 --place 0,33 " WL
               "osu_latency -m 0:1024 -i 5 -x 1",
               &out, 1);
  cr_assert_eq(rc, 0, "%s", out);
  check(out, 33, 32);
  free(out);
}

Test(platform_e2e, star_of_16384_nodes)
{
  /* 16384 hosts: a stored route per host pair would be 2^28 routes */
  char *out;
  int rc = run(ICSIM " run -p " PINGPONG SETS "--set network/topology=star --set nodes/count=16384 -n 2 --place 0,16383 " WL
               "osu_latency -m 0:1024 -i 5 -x 1",
               &out, 1);
  cr_assert_eq(rc, 0, "%s", out);
  check(out, 2, 1);
  free(out);
}
