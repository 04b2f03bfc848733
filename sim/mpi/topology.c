/* Graph and distributed-graph topologies, MPI_Cart_map / MPI_Graph_map, MPI_Topo_test (the
 * neighbourhood collectives on any topology: coll_neighbor.c).
 *
 * Why here: SMPI 3.32 implements Cartesian topologies only; its graph, distributed-graph, mapping
 * and neighbourhood calls are stubs that abort the program. The layer keeps a graph's arrays, or a
 * distributed graph's neighbours and weights, in the record of the communicator it creates
 * (comm_record.c), so that MPI_Comm_dup copies them and MPI_Comm_free drops them as MPI says. No
 * reordering: every rank keeps its rank (MPI allows it; the maps answer accordingly). */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_record.h"

/* COMM's topology becomes T (one a duplicate copied is replaced). */
static int attach(MPI_Comm comm, struct icsim_topo *t)
{
  if (!t)
    return MPI_ERR_NO_MEM;
  struct icsim_comm *r = icsim_comm_get(comm);
  if (!r) {
    icsim_topo_free(t);
    return MPI_ERR_COMM;
  }
  icsim_topo_free(r->topo);
  r->topo = t;
  return MPI_SUCCESS;
}

/* SMPI's MPI_Topo_test is a stub too: the layer marks the Cartesian communicators it sees made
 * (MPI_Cart_create, MPI_Cart_sub: comm.c, icsim_topo_mark_cart) and answers for all three kinds. */
int MPI_Topo_test(MPI_Comm comm, int *status)
{
  int n = 0;
  if (!status)
    return icsim_error(comm, "MPI_Topo_test", MPI_ERR_ARG);
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return icsim_error(MPI_COMM_NULL, "MPI_Topo_test", MPI_ERR_COMM);
  const struct icsim_topo *t = icsim_topo_of(comm);
  *status = t ? t->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* ---- graphs ---- */

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int *index, const int *edges, int reorder, MPI_Comm *out)
{
  (void)reorder;
  int n = 0, me = 0;
  if (!out || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return icsim_error(comm, "MPI_Graph_create", out ? MPI_ERR_COMM : MPI_ERR_ARG);
  PMPI_Comm_rank(comm, &me);
  if (nnodes < 0 || nnodes > n || (nnodes > 0 && (!index || !edges)))
    return icsim_error(comm, "MPI_Graph_create", MPI_ERR_ARG);
  for (int i = 0; i < nnodes; i++)
    if (index[i] < (i ? index[i - 1] : 0))
      return icsim_error(comm, "MPI_Graph_create", MPI_ERR_ARG);
  int nedges = nnodes ? index[nnodes - 1] : 0;
  for (int e = 0; e < nedges; e++)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return icsim_error(comm, "MPI_Graph_create", MPI_ERR_TOPOLOGY);
  /* the first nnodes ranks, in order (the layer's split: SMPI's messages bracketed) */
  int rc = MPI_Comm_split(comm, me < nnodes ? 0 : MPI_UNDEFINED, me, out);
  if (rc != MPI_SUCCESS || *out == MPI_COMM_NULL)
    return rc;
  struct icsim_topo *t = calloc(1, sizeof *t);
  if (t) {
    *t = (struct icsim_topo){.kind = MPI_GRAPH, .nnodes = nnodes, .nedges = nedges};
    t->index = icsim_ints(index, nnodes);
    t->edges = icsim_ints(edges, nedges);
  }
  return icsim_error(comm, "MPI_Graph_create", attach(*out, t));
}

static const struct icsim_topo *graph_of(MPI_Comm comm)
{
  const struct icsim_topo *t = icsim_topo_of(comm);
  return t && t->kind == MPI_GRAPH ? t : NULL;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
  const struct icsim_topo *t = graph_of(comm);
  if (!t || !nnodes || !nedges)
    return icsim_error(comm, "MPI_Graphdims_get", t ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY);
  *nnodes = t->nnodes;
  *nedges = t->nedges;
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index, int *edges)
{
  const struct icsim_topo *t = graph_of(comm);
  if (!t || maxindex < 0 || maxedges < 0)
    return icsim_error(comm, "MPI_Graph_get", t ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY);
  for (int i = 0; i < maxindex && i < t->nnodes; i++)
    index[i] = t->index[i];
  for (int e = 0; e < maxedges && e < t->nedges; e++)
    edges[e] = t->edges[e];
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *n)
{
  const struct icsim_topo *t = graph_of(comm);
  if (!t || rank < 0 || rank >= t->nnodes || !n)
    return icsim_error(comm, "MPI_Graph_neighbors_count", t ? MPI_ERR_RANK : MPI_ERR_TOPOLOGY);
  *n = t->index[rank] - (rank ? t->index[rank - 1] : 0);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int max, int *neighbors)
{
  const struct icsim_topo *t = graph_of(comm);
  if (!t || rank < 0 || rank >= t->nnodes || max < 0)
    return icsim_error(comm, "MPI_Graph_neighbors", t ? MPI_ERR_RANK : MPI_ERR_TOPOLOGY);
  int lo = rank ? t->index[rank - 1] : 0;
  for (int i = 0; i < max && lo + i < t->index[rank]; i++)
    neighbors[i] = t->edges[lo + i];
  return MPI_SUCCESS;
}

/* No reordering: a rank keeps its rank if the topology has room for it. */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int *index, const int *edges, int *newrank)
{
  (void)index, (void)edges;
  int me = 0, n = 0;
  if (!newrank || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || PMPI_Comm_size(comm, &n) != MPI_SUCCESS ||
      nnodes < 0 || nnodes > n)
    return icsim_error(comm, "MPI_Graph_map", MPI_ERR_ARG);
  *newrank = me < nnodes ? me : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int *dims, const int *periods, int *newrank)
{
  (void)periods;
  int me = 0, n = 0;
  if (!newrank || ndims < 0 || (ndims > 0 && !dims) || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
      PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return icsim_error(comm, "MPI_Cart_map", MPI_ERR_ARG);
  long long size = 1;
  for (int d = 0; d < ndims; d++) {
    if (dims[d] <= 0)
      return icsim_error(comm, "MPI_Cart_map", MPI_ERR_DIMS);
    size *= dims[d];
    if (size > n)
      return icsim_error(comm, "MPI_Cart_map", MPI_ERR_DIMS);
  }
  *newrank = me < size ? me : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

static struct icsim_topo *dist_graph(int indeg, const int *in, const int *inw, int outdeg, const int *out, const int *outw,
                               int weighted)
{
  struct icsim_topo *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  *t = (struct icsim_topo){.kind = MPI_DIST_GRAPH, .indeg = indeg, .outdeg = outdeg, .weighted = weighted};
  t->in = icsim_ints(in, indeg);
  t->out = icsim_ints(out, outdeg);
  t->inw = icsim_ints(weighted ? inw : NULL, indeg);
  t->outw = icsim_ints(weighted ? outw : NULL, outdeg);
  if (!t->in || !t->out || !t->inw || !t->outw) {
    icsim_topo_free(t);
    return NULL;
  }
  return t;
}

static int ranks_ok(const int *r, int k, int n)
{
  for (int i = 0; i < k; i++)
    if (r[i] < 0 || r[i] >= n)
      return 0;
  return 1;
}

/* MPI_UNWEIGHTED is the null pointer in SMPI's mpi.h; MPI_WEIGHTS_EMPTY says "weighted, no edge". */
static const int *weights(const int *w) { return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w; }

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int *sources, const int *sourceweights,
                                   int outdeg, const int *destinations, const int *destweights, MPI_Info info,
                                   int reorder, MPI_Comm *out)
{
  (void)info, (void)reorder;
  int n = 0;
  if (!out || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return icsim_error(comm, "MPI_Dist_graph_create_adjacent", out ? MPI_ERR_COMM : MPI_ERR_ARG);
  if (indeg < 0 || outdeg < 0 || (indeg > 0 && (!sources || !ranks_ok(sources, indeg, n))) ||
      (outdeg > 0 && (!destinations || !ranks_ok(destinations, outdeg, n))))
    return icsim_error(comm, "MPI_Dist_graph_create_adjacent", MPI_ERR_ARG);
  int weighted = sourceweights != MPI_UNWEIGHTED || destweights != MPI_UNWEIGHTED;
  int rc = MPI_Comm_dup(comm, out);
  if (rc != MPI_SUCCESS)
    return rc;
  return icsim_error(comm, "MPI_Dist_graph_create_adjacent",
                     attach(*out, dist_graph(indeg, sources, weights(sourceweights), outdeg, destinations,
                                             weights(destweights), weighted)));
}

/* Each rank names edges (source -> destination, weight) that may be anyone's: every edge goes to
 * its source (a destination of it) and to its destination (a source of it), through the layer's
 * all-to-all(v), four ints an edge: which end, source, destination, weight. */
int MPI_Dist_graph_create(MPI_Comm comm, int nsrc, const int *sources, const int *degrees, const int *destinations,
                          const int *weightsv, MPI_Info info, int reorder, MPI_Comm *out)
{
  (void)info, (void)reorder;
  int n = 0;
  if (!out || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return icsim_error(comm, "MPI_Dist_graph_create", out ? MPI_ERR_COMM : MPI_ERR_ARG);
  if (nsrc < 0 || (nsrc > 0 && (!sources || !degrees || !ranks_ok(sources, nsrc, n))))
    return icsim_error(comm, "MPI_Dist_graph_create", MPI_ERR_ARG);
  long long nedges = 0;
  for (int i = 0; i < nsrc; i++) {
    if (degrees[i] < 0)
      return icsim_error(comm, "MPI_Dist_graph_create", MPI_ERR_ARG);
    nedges += degrees[i];
  }
  if (nedges > 0 && (!destinations || !ranks_ok(destinations, (int)nedges, n)))
    return icsim_error(comm, "MPI_Dist_graph_create", MPI_ERR_ARG);
  const int *w = weights(weightsv);
  int *scount = calloc((size_t)n, sizeof *scount), *sdispl = calloc((size_t)n, sizeof *sdispl);
  int *rcount = calloc((size_t)n, sizeof *rcount), *rdispl = calloc((size_t)n, sizeof *rdispl);
  int *send = malloc((size_t)(8 * nedges + 1) * sizeof *send), *fill = calloc((size_t)n, sizeof *fill);
  int rc = scount && sdispl && rcount && rdispl && send && fill ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  int *recv = NULL;
  long long k = 0;
  for (int i = 0; rc == MPI_SUCCESS && i < nsrc; i++)
    for (int j = 0; j < degrees[i]; j++, k++) {
      scount[sources[i]] += 4;
      scount[destinations[k]] += 4;
    }
  for (int r = 1; rc == MPI_SUCCESS && r < n; r++)
    sdispl[r] = sdispl[r - 1] + scount[r - 1];
  k = 0;
  for (int i = 0; rc == MPI_SUCCESS && i < nsrc; i++)
    for (int j = 0; j < degrees[i]; j++, k++) {
      int s = sources[i], d = destinations[k], wt = w ? w[k] : 1;
      int *a = &send[sdispl[s] + fill[s]];
      a[0] = 1, a[1] = s, a[2] = d, a[3] = wt; /* to the source: a destination */
      fill[s] += 4;
      int *b = &send[sdispl[d] + fill[d]]; /* after: a self-loop's two records are both s's */
      b[0] = 0, b[1] = s, b[2] = d, b[3] = wt; /* to the destination: a source */
      fill[d] += 4;
    }
  if (rc == MPI_SUCCESS)
    rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
    rdispl[r] = total;
    total += rcount[r];
  }
  if (rc == MPI_SUCCESS && !(recv = malloc((size_t)(total + 1) * sizeof *recv)))
    rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS)
    rc = MPI_Alltoallv(send, scount, sdispl, MPI_INT, recv, rcount, rdispl, MPI_INT, comm);
  if (rc == MPI_SUCCESS) {
    int indeg = 0, outdeg = 0;
    for (int e = 0; e < total; e += 4)
      recv[e] ? outdeg++ : indeg++;
    int *in = malloc((size_t)(indeg + 1) * sizeof *in), *inw = malloc((size_t)(indeg + 1) * sizeof *inw);
    int *o = malloc((size_t)(outdeg + 1) * sizeof *o), *ow = malloc((size_t)(outdeg + 1) * sizeof *ow);
    if (in && inw && o && ow) {
      int a = 0, b = 0;
      for (int e = 0; e < total; e += 4) /* in the order of the ranks that named them */
        if (recv[e]) {
          o[b] = recv[e + 2], ow[b++] = recv[e + 3];
        } else {
          in[a] = recv[e + 1], inw[a++] = recv[e + 3];
        }
      /* weighted when any rank gave weights: with MPI_UNWEIGHTED null, a rank naming no edge may
       * pass null for "no weights to give" (MPICH's distgraph1) */
      int weighted = weightsv != MPI_UNWEIGHTED, any = 0;
      rc = MPI_Allreduce(&weighted, &any, 1, MPI_INT, MPI_LOR, comm);
      if (rc == MPI_SUCCESS)
        rc = MPI_Comm_dup(comm, out);
      if (rc == MPI_SUCCESS)
        rc = attach(*out, dist_graph(indeg, in, inw, outdeg, o, ow, any));
    } else {
      rc = MPI_ERR_NO_MEM;
    }
    free(in), free(inw), free(o), free(ow);
  }
  free(scount), free(sdispl), free(rcount), free(rdispl), free(send), free(fill), free(recv);
  return icsim_error(comm, "MPI_Dist_graph_create", rc);
}

static const struct icsim_topo *dist_of(MPI_Comm comm)
{
  const struct icsim_topo *t = icsim_topo_of(comm);
  return t && t->kind == MPI_DIST_GRAPH ? t : NULL;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indeg, int *outdeg, int *weighted)
{
  const struct icsim_topo *t = dist_of(comm);
  if (!t || !indeg || !outdeg || !weighted)
    return icsim_error(comm, "MPI_Dist_graph_neighbors_count", t ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY);
  *indeg = t->indeg;
  *outdeg = t->outdeg;
  *weighted = t->weighted;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxin, int *sources, int *sourceweights, int maxout,
                             int *destinations, int *destweights)
{
  const struct icsim_topo *t = dist_of(comm);
  if (!t || maxin < 0 || maxout < 0)
    return icsim_error(comm, "MPI_Dist_graph_neighbors", t ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY);
  for (int i = 0; i < maxin && i < t->indeg; i++) {
    sources[i] = t->in[i];
    if (t->weighted && weights(sourceweights))
      sourceweights[i] = t->inw[i];
  }
  for (int i = 0; i < maxout && i < t->outdeg; i++) {
    destinations[i] = t->out[i];
    if (t->weighted && weights(destweights))
      destweights[i] = t->outw[i];
  }
  return MPI_SUCCESS;
}
