/* Placement and routing, checked against hand-counted hops. */
#include <criterion/criterion.h>
#include <stdio.h>
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
  struct icsim_hop hops[64];
  int n = icsim_route(&pf, src, dst, hops, 64), k = 0;
  cr_assert_geq(n, 1, "route %d -> %d", src, dst);
  for (int i = 0; i < n; i++)
    k += pf.links[hops[i].link].kind == kind;
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
