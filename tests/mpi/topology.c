/* Process topologies and neighbourhood collectives: MPI_Topo_test on every kind; a periodic ring
 * and a 2-D grid (Cartesian) with MPI_Neighbor_alltoall, _allgather and MPI_Ineighbor_alltoallv;
 * a graph (MPI_Graph_create, its queries, MPI_Graph_map, MPI_Cart_map, a rank left out, the
 * topology kept by MPI_Comm_dup) with MPI_Neighbor_allgather; distributed graphs, adjacent (with
 * weights) and from edges named by rank 0 alone, with MPI_Neighbor_alltoall and _alltoallw. SMPI
 * 3.32 implements only Cartesian topologies (and no MPI_Topo_test, no neighbourhood collective):
 * the layer does the rest (sim/mpi/topology.c). Correct MPI that prints No Errors on MPICH.
 *
 * The values exchanged are longs: right after a communicator is made, a 4-byte message of the
 * program can be told from SMPI's own 4-byte messages of that creation only by timing (the
 * transfers are matched by hosts and size, tests/mpi/README.md), and --stats may then count one
 * of them as the other's. */
#include "suite.h"

static void ring_cart(void)
{
  int me = suite_rank, n = suite_size, periods[1] = {1}, dims[1] = {n}, kind;
  MPI_Comm ring, dup;
  suite_step("periodic ring: MPI_Cart_create, MPI_Topo_test");
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  MPI_OK(MPI_Topo_test(ring, &kind));
  CHECK(kind == MPI_CART, "ring: Topo_test %d, not MPI_CART", kind);
  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &kind));
  CHECK(kind == MPI_UNDEFINED, "WORLD: Topo_test %d, not MPI_UNDEFINED", kind);
  suite_step("ring: MPI_Neighbor_alltoall (block 0 to rank-1, block 1 to rank+1)");
  long s[2] = {-(me + 1), me + 1}, r[2] = {-99, -99};
  MPI_OK(MPI_Neighbor_alltoall(s, 1, MPI_LONG, r, 1, MPI_LONG, ring));
  int left = (me + n - 1) % n, right = (me + 1) % n;
  /* slot 0 comes from rank-1, which sent it its block 1 (+1); slot 1 from rank+1's block 0 */
  CHECK(r[0] == left + 1 && r[1] == -(right + 1), "ring alltoall: %ld %ld (expected %d %d)", r[0], r[1], left + 1,
        -(right + 1));
  suite_step("ring: MPI_Ineighbor_alltoallv on a dup (the topology is kept)");
  MPI_OK(MPI_Comm_dup(ring, &dup));
  MPI_OK(MPI_Topo_test(dup, &kind));
  CHECK(kind == MPI_CART, "dup of the ring: Topo_test %d", kind);
  long sv[3] = {10 * me, 10 * me + 1, 10 * me + 2}, rv[3] = {-1, -1, -1};
  int sc[2] = {1, 2}, sd[2] = {0, 1}, rc[2] = {2, 1}, rd[2] = {0, 2};
  MPI_Request req;
  MPI_OK(MPI_Ineighbor_alltoallv(sv, sc, sd, MPI_LONG, rv, rc, rd, MPI_LONG, dup, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  /* from the left neighbour its +1 block (2 ints at its offset 1), from the right its -1 block */
  CHECK(rv[0] == 10 * left + 1 && rv[1] == 10 * left + 2 && rv[2] == 10 * right,
        "ring alltoallv: %ld %ld %ld", rv[0], rv[1], rv[2]);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&ring));
}

static void grid_cart(void)
{
  int me = suite_rank, n = suite_size, dims[2] = {0, 0}, periods[2] = {0, 1}, coords[2];
  MPI_Comm grid;
  suite_step("2-D grid: MPI_Neighbor_allgather, off-edge slots untouched");
  MPI_OK(MPI_Dims_create(n, 2, dims));
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
  MPI_OK(MPI_Cart_coords(grid, me, 2, coords));
  long r[4] = {-1, -1, -1, -1}, mine = me;
  int nb[4];
  MPI_OK(MPI_Neighbor_allgather(&mine, 1, MPI_LONG, r, 1, MPI_LONG, grid));
  MPI_OK(MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]));
  MPI_OK(MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]));
  for (int i = 0; i < 4; i++)
    CHECK(r[i] == (nb[i] == MPI_PROC_NULL ? -1 : nb[i]), "grid slot %d: %ld, neighbour %d", i, r[i], nb[i]);
  MPI_OK(MPI_Comm_free(&grid));
}

static void graph(void)
{
  int me = suite_rank, n = suite_size, kind;
  int nnodes = n - 1; /* the last rank is left out */
  int index[64], edges[128], e = 0;
  for (int i = 0; i < nnodes; i++) { /* a ring of nnodes nodes, and node 0 also linked to 1 again */
    edges[e++] = (i + 1) % nnodes;
    edges[e++] = (i + nnodes - 1) % nnodes;
    index[i] = e;
  }
  MPI_Comm g, dup;
  suite_step("MPI_Graph_create of %d nodes", nnodes);
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
  int newrank;
  MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &newrank));
  CHECK((me < nnodes) == (newrank != MPI_UNDEFINED), "Graph_map: rank %d -> %d", me, newrank);
  int dims1[1] = {nnodes}, periods1[1] = {0};
  MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, periods1, &newrank));
  CHECK((me < nnodes) == (newrank != MPI_UNDEFINED), "Cart_map: rank %d -> %d", me, newrank);
  if (me >= nnodes) {
    CHECK(g == MPI_COMM_NULL, "the rank outside the graph got a communicator");
    return;
  }
  CHECK(g != MPI_COMM_NULL, "a graph rank got MPI_COMM_NULL");
  MPI_OK(MPI_Topo_test(g, &kind));
  CHECK(kind == MPI_GRAPH, "graph: Topo_test %d", kind);
  int nn, ne, idx[64], ed[128], cnt, nbrs[8];
  MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
  CHECK(nn == nnodes && ne == e, "Graphdims_get: %d nodes %d edges (%d, %d)", nn, ne, nnodes, e);
  MPI_OK(MPI_Graph_get(g, 64, 128, idx, ed));
  CHECK(idx[nnodes - 1] == e && ed[0] == edges[0] && ed[e - 1] == edges[e - 1], "Graph_get differs");
  MPI_OK(MPI_Graph_neighbors_count(g, me, &cnt));
  MPI_OK(MPI_Graph_neighbors(g, me, 8, nbrs));
  CHECK(cnt == 2 && nbrs[0] == (me + 1) % nnodes && nbrs[1] == (me + nnodes - 1) % nnodes,
        "Graph_neighbors: %d: %d %d", cnt, nbrs[0], nbrs[1]);
  suite_step("graph: MPI_Neighbor_allgather on a dup");
  MPI_OK(MPI_Comm_dup(g, &dup));
  MPI_OK(MPI_Topo_test(dup, &kind));
  CHECK(kind == MPI_GRAPH, "dup of the graph: Topo_test %d", kind);
  long r[2] = {-1, -1}, v = 100 + me;
  MPI_OK(MPI_Neighbor_allgather(&v, 1, MPI_LONG, r, 1, MPI_LONG, dup));
  CHECK(r[0] == 100 + nbrs[0] && r[1] == 100 + nbrs[1], "graph allgather: %ld %ld", r[0], r[1]);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&g));
}

static void dist_graphs(void)
{
  int me = suite_rank, n = suite_size, kind;
  int left = (me + n - 1) % n, right = (me + 1) % n;
  MPI_Comm d;
  suite_step("MPI_Dist_graph_create_adjacent: from the left, to the right, weighted");
  int src[1] = {left}, sw[1] = {left + 1}, dst[1] = {right}, dw[1] = {me + 1};
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 1, dst, dw, MPI_INFO_NULL, 0, &d));
  MPI_OK(MPI_Topo_test(d, &kind));
  CHECK(kind == MPI_DIST_GRAPH, "dist graph: Topo_test %d", kind);
  int indeg, outdeg, weighted, s2[2], w2[2], d2[2], x2[2];
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted, "neighbors_count: %d %d %d", indeg, outdeg, weighted);
  MPI_OK(MPI_Dist_graph_neighbors(d, 2, s2, w2, 2, d2, x2));
  CHECK(s2[0] == left && w2[0] == left + 1 && d2[0] == right && x2[0] == me + 1, "neighbors: %d/%d %d/%d", s2[0],
        w2[0], d2[0], x2[0]);
  long v = 7 * me, r = -1;
  MPI_OK(MPI_Neighbor_alltoall(&v, 1, MPI_LONG, &r, 1, MPI_LONG, d));
  CHECK(r == 7 * left, "dist graph alltoall: %ld from %d", r, left);
  MPI_OK(MPI_Comm_free(&d));

  suite_step("MPI_Dist_graph_create: rank 0 names every edge (both directions of the ring)");
  int srcs[128], degs[128], dsts[256], k = 0;
  for (int i = 0; me == 0 && i < n; i++) {
    srcs[i] = i;
    degs[i] = 2;
    dsts[k++] = (i + 1) % n;
    dsts[k++] = (i + n - 1) % n;
  }
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? n : 0, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                               &d));
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
  CHECK(indeg == 2 && outdeg == 2 && !weighted, "neighbors_count: %d %d %d", indeg, outdeg, weighted);
  MPI_OK(MPI_Dist_graph_neighbors(d, 2, s2, MPI_UNWEIGHTED, 2, d2, MPI_UNWEIGHTED));
  int in_ok = (s2[0] == left && s2[1] == right) || (s2[0] == right && s2[1] == left) || n <= 2;
  CHECK(in_ok, "sources %d %d (expected %d and %d)", s2[0], s2[1], left, right);
  suite_step("its MPI_Neighbor_alltoallw: a block to each destination, one from each source");
  long sb[2] = {1000 * me + d2[0], 1000 * me + d2[1]}, rb[2] = {-1, -1};
  int one[2] = {1, 1};
  MPI_Aint displ[2] = {0, sizeof(long)};
  MPI_Datatype types[2] = {MPI_LONG, MPI_LONG};
  MPI_OK(MPI_Neighbor_alltoallw(sb, one, displ, types, rb, one, displ, types, d));
  for (int i = 0; i < 2; i++) /* what source s2[i] sent to this rank */
    CHECK(rb[i] == 1000 * s2[i] + me, "alltoallw slot %d: %ld from %d", i, rb[i], s2[i]);
  MPI_OK(MPI_Comm_free(&d));
}

/* The smallest spread (largest - smallest) over every way of writing N as K factors, by brute
 * force: what "as close to each other as possible" (MPI 3.1, 7.5.2) must achieve. */
static int best_spread(int n, int k, int maxf, int first)
{
  if (k == 1)
    return n <= maxf ? first - n : 1 << 30;
  int best = 1 << 30;
  for (int f = maxf < n ? maxf : n; f >= 1; f--)
    if (n % f == 0) {
      int s = best_spread(n / f, k - 1, f, first ? first : f);
      best = s < best ? s : best;
    }
  return best;
}

static void dims_create(void)
{
  suite_step("MPI_Dims_create: balanced, non-increasing, fixed entries kept, errors");
  for (int k = 2; k <= 4; k++)
    for (int n = 1; n <= 400; n += (k == 2 ? 1 : 7)) {
      int d[4] = {0, 0, 0, 0};
      MPI_OK(MPI_Dims_create(n, k, d));
      int prod = 1, sorted = 1;
      for (int i = 0; i < k; i++) {
        prod *= d[i];
        sorted &= i == 0 || d[i] <= d[i - 1];
      }
      CHECK(prod == n && sorted, "Dims_create(%d, %d): %d x %d x %d x %d", n, k, d[0], d[1], d[2], d[3]);
      if (prod == n && sorted)
        CHECK(d[0] - d[k - 1] == best_spread(n, k, n, 0), "Dims_create(%d, %d): spread %d, %d possible", n, k,
              d[0] - d[k - 1], best_spread(n, k, n, 0));
    }
  int d[3] = {0, 2, 0};
  MPI_OK(MPI_Dims_create(24, 3, d));
  CHECK(d[0] == 4 && d[1] == 2 && d[2] == 3, "Dims_create(24, {0, 2, 0}): %d %d %d", d[0], d[1], d[2]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad[2] = {5, 0}, cls = -1;
  MPI_Error_class(MPI_Dims_create(12, 2, bad), &cls);
  CHECK(cls == MPI_ERR_DIMS, "Dims_create(12, {5, 0}): error class %d, expected MPI_ERR_DIMS", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(3))
    return suite_finish();
  ring_cart();
  grid_cart();
  graph();
  dist_graphs();
  dims_create();
  return suite_finish();
}
