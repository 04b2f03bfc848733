/* Placement and routing, checked against hand-counted hops. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

static struct icsim_platform pf;

static void load(const char *topology_lines, int nodes, int sockets, int cores)
{
  char path[64], text[1024];
  snprintf(path, sizeof path, "/tmp/icsim-plat-%d.yaml", (int)getpid());
  snprintf(text, sizeof text,
           "name: t\nlayers: [generic]\nnodes:\n  count: %d\n  sockets: %d\n  cores-per-socket: %d\n"
           "  clock: 1GHz\n  speed: 1Gf\nnetwork:\n  link-bandwidth: 1GBps\n%s",
           nodes, sockets, cores, topology_lines);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  char err[1024];
  cr_assert_eq(icsim_platform_load(&pf, path, NULL, 0, err, sizeof err), 0, "%s", err);
  unlink(path);
}

static int count_kind(int src, int dst, enum icsim_link_kind kind)
{
  int cap = icsim_route_max_hops(&pf);
  struct icsim_hop *hops = malloc((size_t)cap * sizeof *hops);
  int n = icsim_route(&pf, src, dst, hops, cap), k = 0;
  cr_assert_geq(n, 1, "route %d -> %d", src, dst);
  for (int i = 0; i < n; i++)
    k += pf.links[hops[i].link].kind == kind;
  free(hops);
  return k;
}

Test(placement, block_cyclic_shape_and_list)
{
  load("  topology: star\n", 4, 2, 2); /* 4 nodes x 2 sockets x 2 cores */
  int h[16];
  char err[256];
  cr_assert_eq(icsim_place(&pf, 8, "block", h, err, sizeof err), 0, "%s", err);
  /* block: node 0 takes ranks 0-3: socket 0 gets 0,1; socket 1 gets 2,3 */
  int block[] = {0, 0, 1, 1, 2, 2, 3, 3};
  for (int r = 0; r < 8; r++)
    cr_assert_eq(h[r], block[r], "block rank %d on host %d", r, h[r]);
  cr_assert_eq(icsim_place(&pf, 8, "cyclic", h, err, sizeof err), 0);
  int cyclic[] = {0, 2, 4, 6, 0, 2, 4, 6};
  for (int r = 0; r < 8; r++)
    cr_assert_eq(h[r], cyclic[r], "cyclic rank %d on host %d", r, h[r]);
  cr_assert_eq(icsim_place(&pf, 8, "4x2", h, err, sizeof err), 0);
  int shape[] = {0, 0, 2, 2, 4, 4, 6, 6};
  for (int r = 0; r < 8; r++)
    cr_assert_eq(h[r], shape[r]);
  cr_assert_eq(icsim_place(&pf, 3, "3,3,0", h, err, sizeof err), 0);
  cr_assert_eq(h[0], 6);
  cr_assert_eq(h[1], 6);
  cr_assert_eq(h[2], 0);
  /* node.socket pins: rank 0 and 1 on node 1 socket 1, rank 2 on node 1 socket 0 */
  cr_assert_eq(icsim_place(&pf, 3, "1.1,1.1,1.0", h, err, sizeof err), 0, "%s", err);
  cr_assert_eq(h[0], 3);
  cr_assert_eq(h[1], 3);
  cr_assert_eq(h[2], 2);
  cr_assert_neq(icsim_place(&pf, 3, "1.1,1.1,1.1", h, err, sizeof err), 0); /* 2 cores per socket */
  cr_assert_neq(icsim_place(&pf, 1, "1.2", h, err, sizeof err), 0);
  cr_assert(strstr(err, "socket 2 does not exist"), "%s", err);
  icsim_platform_free(&pf);
}

Test(placement, errors_say_what_fits)
{
  load("  topology: star\n", 2, 1, 2);
  int h[16];
  char err[256];
  cr_assert_neq(icsim_place(&pf, 5, "block", h, err, sizeof err), 0);
  cr_assert(strstr(err, "2 nodes x 2 cores = 4 cores"), "%s", err);
  cr_assert_neq(icsim_place(&pf, 4, "3x2", h, err, sizeof err), 0);
  cr_assert(strstr(err, "pick N <= 2"), "%s", err);
  cr_assert_neq(icsim_place(&pf, 4, "2x1", h, err, sizeof err), 0);
  cr_assert(strstr(err, "make N x C equal -n"), "%s", err);
  cr_assert_neq(icsim_place(&pf, 3, "0,0,0", h, err, sizeof err), 0);
  cr_assert(strstr(err, "more ranks on node 0 than it has cores"), "%s", err);
  cr_assert_neq(icsim_place(&pf, 2, "0,5", h, err, sizeof err), 0);
  cr_assert(strstr(err, "node 5 does not exist"), "%s", err);
  cr_assert_neq(icsim_place(&pf, 2, "zigzag", h, err, sizeof err), 0);
  icsim_platform_free(&pf);
}

Test(routing, node_internal_channels)
{
  load("  topology: star\n", 2, 2, 4);
  /* same socket: its memory controller only */
  cr_assert_eq(count_kind(0, 0, ICSIM_LINK_MEMORY), 1);
  cr_assert_eq(count_kind(0, 0, ICSIM_LINK_NETWORK), 0);
  /* other socket: two memory controllers and the inter-socket link */
  cr_assert_eq(count_kind(0, 1, ICSIM_LINK_MEMORY), 2);
  cr_assert_eq(count_kind(0, 1, ICSIM_LINK_SOCKET), 1);
  /* other node through the star: two node links and one switch */
  cr_assert_eq(count_kind(0, 3, ICSIM_LINK_NETWORK), 2);
  cr_assert_eq(count_kind(0, 3, ICSIM_LINK_SWITCH), 1);
  icsim_platform_free(&pf);
}

Test(routing, torus_takes_the_short_way_round)
{
  load("  topology: torus3d\n  torus-dims: 4x2x2\n", 16, 1, 1);
  /* node 0 (0,0,0) -> node 3 (3,0,0): one hop backwards over the wrap link */
  cr_assert_eq(count_kind(0, 3, ICSIM_LINK_NETWORK), 1);
  /* node 0 -> node 2 (2,0,0): two hops; node 0 -> node 15 (3,1,1): 1 + 1 + 1 */
  cr_assert_eq(count_kind(0, 2, ICSIM_LINK_NETWORK), 2);
  cr_assert_eq(count_kind(0, 15, ICSIM_LINK_NETWORK), 3);
  /* intermediate routers only: 3 hops cross 2 of them */
  cr_assert_eq(count_kind(0, 15, ICSIM_LINK_SWITCH), 2);
  icsim_platform_free(&pf);
}

Test(routing, fat_tree_and_ring)
{
  load("  topology: fat-tree2\n  leaf-size: 4\n  spines: 2\n", 8, 1, 1);
  cr_assert_eq(count_kind(0, 1, ICSIM_LINK_SWITCH), 1); /* same leaf */
  cr_assert_eq(count_kind(0, 5, ICSIM_LINK_SWITCH), 3); /* leaf, spine, leaf */
  cr_assert_eq(count_kind(0, 5, ICSIM_LINK_NETWORK), 4);
  cr_assert_eq(count_kind(0, 5, ICSIM_LINK_MEMORY), 0); /* between nodes: network only */
  /* node 5's adapter is its own link to the leaf switch: net:5 */
  cr_assert_str_eq(pf.links[icsim_adapter_link(&pf, 5)].name, "net:5");
  icsim_platform_free(&pf);
  load("  topology: ring\n", 6, 1, 1);
  cr_assert_eq(count_kind(0, 3, ICSIM_LINK_NETWORK), 3);
  cr_assert_eq(count_kind(0, 5, ICSIM_LINK_NETWORK), 1);
  cr_assert_eq(icsim_adapter_link(&pf, 2), -1); /* two links per node: none is the whole adapter */
  icsim_platform_free(&pf);
  load("  topology: full\n", 5, 1, 1);
  cr_assert_eq(count_kind(1, 4, ICSIM_LINK_NETWORK), 1);
  cr_assert_eq(count_kind(4, 1, ICSIM_LINK_NETWORK), 1);
  icsim_platform_free(&pf);
}

Test(routing, host_names_round_trip)
{
  load("  topology: star\n", 3, 2, 1);
  char name[64];
  for (int h = 0; h < 6; h++) {
    icsim_host_name(&pf, h, name, sizeof name);
    cr_assert_eq(icsim_host_index(&pf, name), h, "%s", name);
  }
  cr_assert_eq(icsim_host_index(&pf, "node3.s0"), -1);
  icsim_platform_free(&pf);
}

/* ---- size limits, computed routes, strict placement and --set ---- */

/* Load like load() with SETS; returns the loader's status, the message in ERR. */
static int load_status(const char *topology_lines, int nodes, int sockets, char *const *sets, int nsets, char *err,
                       size_t errlen)
{
  char path[64], text[1024];
  snprintf(path, sizeof path, "/tmp/icsim-plat-%d.yaml", (int)getpid());
  snprintf(text, sizeof text,
           "name: t\nlayers: [generic]\nnodes:\n  count: %d\n  sockets: %d\n"
           "  clock: 1GHz\n  speed: 1Gf\nnetwork:\n  link-bandwidth: 1GBps\n%s",
           nodes, sockets, topology_lines);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  int rc = icsim_platform_load(&pf, path, sets, nsets, err, errlen);
  unlink(path);
  return rc;
}

static void refused(const char *topology_lines, int nodes, int sockets, const char *needle)
{
  char err[1024] = "";
  cr_assert_neq(load_status(topology_lines, nodes, sockets, NULL, 0, err, sizeof err), 0, "%d nodes accepted", nodes);
  cr_assert(strstr(err, needle), "'%s' should contain '%s'", err, needle);
}

Test(routing, ring_of_66_routes_half_way_round)
{
  /* the report of issue 18: 65 hops between node 0 and node 33 overflowed a 64-hop buffer */
  load("  topology: ring\n", 66, 1, 1);
  cr_assert_eq(count_kind(0, 33, ICSIM_LINK_NETWORK), 33);
  cr_assert_eq(count_kind(0, 33, ICSIM_LINK_SWITCH), 32); /* routers of nodes 1..32 */
  cr_assert_eq(count_kind(0, 34, ICSIM_LINK_NETWORK), 32); /* backwards, over the wrap link */
  icsim_platform_free(&pf);
  load("  topology: ring\n", 101, 1, 1);
  int cap = icsim_route_max_hops(&pf);
  struct icsim_hop *hops = malloc((size_t)cap * sizeof *hops);
  int longest = 0;
  for (int b = 0; b < 101; b++) {
    int n = icsim_route(&pf, 0, b, hops, cap);
    cr_assert_geq(n, 1, "0 -> %d", b);
    longest = n > longest ? n : longest;
  }
  cr_assert_eq(longest, 50 + 49); /* 50 links and the 49 routers between them */
  free(hops);
  icsim_platform_free(&pf);
}

Test(routing, a_route_never_writes_past_its_buffer)
{
  load("  topology: star\n", 4, 1, 1);
  struct icsim_hop hops[3] = {{-7, -7}, {-7, -7}, {-7, -7}};
  cr_assert_eq(icsim_route(&pf, 0, 2, hops, 2), -1); /* node link, switch, node link: 3 hops */
  cr_assert_eq(hops[2].link, -7);
  cr_assert_eq(icsim_route(&pf, 0, 2, hops, 3), 3);
  icsim_platform_free(&pf);
}

Test(limits, full_topology_links_are_bounded)
{
  /* N memory links + N(N-1)/2 pair links <= 2^20: N(N+1)/2 <= 1048576 gives N <= 1447 */
  refused("  topology: full\n", 65536, 1, "needs 2147516416 links");
  refused("  topology: full\n", 1448, 1, "use at most 1447 nodes");
  char err[1024];
  cr_assert_eq(load_status("  topology: full\n", 1447, 1, NULL, 0, err, sizeof err), 0, "%s", err);
  cr_assert_eq(pf.nlinks, 1447 + 1447 * 1446 / 2);
  icsim_platform_free(&pf);
}

Test(limits, big_stars_load_and_hosts_are_bounded)
{
  char err[1024];
  /* issue 13 runs up to 16384 ranks on a star: 65536 one-socket nodes is the host limit */
  cr_assert_eq(load_status("  topology: star\n", 65536, 1, NULL, 0, err, sizeof err), 0, "%s", err);
  cr_assert_eq(pf.nlinks, 65536 + 65536 + 1); /* memory, node link, the switch */
  icsim_platform_free(&pf);
  refused("  topology: star\n", 65536, 2, "65536 nodes x 2 sockets = 131072 SimGrid hosts; icsim builds at most 65536");
  /* a fat tree's uplinks grow with leaves x spines: 65536 leaves of 1 x 1024 spines */
  refused("  topology: fat-tree2\n  leaf-size: 1\n  spines: 1024\n", 65536, 1, "links, more than the 1048576");
}

Test(limits, torus_dims_are_checked_without_overflow)
{
  /* 65536 x 65536 x 1 = 2^32: an int product wraps to 0 */
  refused("  topology: torus3d\n  torus-dims: 65536x65536x1\n", 8, 1, "holds 4294967296 nodes but nodes/count is 8");
  refused("  topology: torus3d\n  torus-dims: 2x2x2x\n", 8, 1, "must be XxYxZ");
  refused("  topology: torus3d\n  torus-dims: 2x-2x-2\n", 8, 1, "must be XxYxZ");
  refused("  topology: torus3d\n  torus-dims: 2x2x 2\n", 8, 1, "must be XxYxZ");
}

Test(limits, keys_of_another_topology_are_refused)
{
  refused("  topology: star\n  leaf-size: 4\n", 8, 1, "network/leaf-size applies to fat-tree2 only, but network/topology is star");
  refused("  topology: ring\n  torus-dims: 2x2x2\n", 8, 1, "network/torus-dims applies to torus3d only");
  char err[1024];
  char *set[] = {"network/spines=2"};
  cr_assert_neq(load_status("  topology: star\n", 8, 1, set, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "--set network/spines: network/spines applies to fat-tree2 only"), "%s", err);
}

Test(limits, shapes_where_one_value_is_expected)
{
  refused("  topology: {value: star, origin: paper}\nstack: {a: 1}\n", 8, 1, "'stack' is the old form");
  refused("  topology: star\n  link-latency: {a: 1}\n", 8, 1,
          "'network/link-latency' takes a single value, not a list or mapping");
  refused("  topology: [star]\n", 8, 1, "'network/topology' takes a single value");
}

Test(placement, numbers_are_plain_digits)
{
  load("  topology: star\n", 4, 2, 2);
  int h[8];
  char err[512];
  const char *bad[] = {"0.-1,1", "0,1,", ",0,1", "0,,1", " 0,1", "+0,1", "0x1,1", "0.,1", "2x+1", "2x1 ", "1x2x",
                       "", "-1x2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_neq(icsim_place(&pf, 2, bad[i], h, err, sizeof err), 0, "--place '%s' accepted", bad[i]);
    cr_assert(strstr(err, "write block, cyclic, NxC"), "'%s': %s", bad[i], err);
  }
  cr_assert_neq(icsim_place(&pf, 2, "99999999999999999999,0", h, err, sizeof err), 0);
  cr_assert_eq(icsim_place(&pf, 2, "0.1,3.0", h, err, sizeof err), 0, "%s", err);
  cr_assert_eq(h[0], 1);
  cr_assert_eq(h[1], 6);
  cr_assert_eq(icsim_place(&pf, 2, "1x2", h, err, sizeof err), 0, "%s", err);
  icsim_platform_free(&pf);
}

Test(limits, set_values_are_checked)
{
  char err[1024];
  char *empty[] = {"name="};
  cr_assert_neq(load_status("  topology: star\n", 2, 1, empty, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "--set name=: name: empty value"), "%s", err);
  char longkey[400];
  memset(longkey, 'k', 300);
  strcpy(longkey + 300, "=1");
  char *lk[] = {longkey};
  cr_assert_neq(load_status("  topology: star\n", 2, 1, lk, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "the key is longer than 255 characters"), "%s", err);
  char *noeq[] = {"=5"};
  cr_assert_neq(load_status("  topology: star\n", 2, 1, noeq, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "write key=value"), "%s", err);
}
