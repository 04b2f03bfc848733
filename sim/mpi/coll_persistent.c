/* Persistent collectives (MPI 4.0, 6.13): MPI_Bcast_init and the sixteen others, which neither
 * SimGrid's SMPI 3.32 nor its mpi.h has. The call keeps its arguments and hands back a persistent
 * request (the progress engine's stand-in: an SMPI persistent send to self that is never started); each MPI_Start runs the layer's blocking collective with those arguments at once,
 * so the request is already complete when the program waits on it (an inactive persistent
 * request: MPI_Wait and MPI_Test return at once). As for the layer's non-blocking collectives,
 * the messages and costs are the blocking form's, charged at the start; a program that needs the
 * collective to overlap something it posts after MPI_Start deadlocks, and icsim says so. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"


struct pcoll {
  MPI_Request h; /* the program's handle */
  enum icsim_coll_kind kind;
  const void *sbuf;
  void *rbuf;
  int scount, rcount, root;
  MPI_Datatype stype, rtype;
  const int *scounts, *sdispls, *rcounts, *rdispls;
  const MPI_Datatype *stypes, *rtypes;
  MPI_Op op;
  MPI_Comm comm;
  struct pcoll *next;
};
static struct pcoll *pcolls;

static struct pcoll *find(MPI_Request h)
{
  if (h == MPI_REQUEST_NULL)
    return NULL;
  for (struct pcoll *p = pcolls; p; p = p->next)
    if (p->h == h)
      return p;
  return NULL;
}

/* The blocking collective's argument checks (coll_check.c), made when the request is made, as
 * MPICH makes them: an error at MPI_Start would come too late for the program to see which call
 * was wrong. The communicator's size and rank are read here without making its shadow, which
 * the first start makes as before (icsim_coll_peek). */
static int check(const struct pcoll *a)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Start", a->comm, &c))
    return MPI_SUCCESS; /* outside icsim, or SMPI reports the communicator at the start */
  switch (a->kind) {
  case ICSIM_COLL_BARRIER: return MPI_SUCCESS;
  case ICSIM_COLL_BCAST: return icsim_check_bcast(&c, a->rbuf, a->rcount, a->rtype, a->root);
  case ICSIM_COLL_REDUCE: return icsim_check_reduce(&c, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root);
  case ICSIM_COLL_ALLREDUCE: return icsim_check_allreduce(&c, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op);
  case ICSIM_COLL_GATHER:
    return icsim_check_gather(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root);
  case ICSIM_COLL_GATHERV:
    return icsim_check_gatherv(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->root);
  case ICSIM_COLL_SCATTER:
    return icsim_check_scatter(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root);
  case ICSIM_COLL_SCATTERV:
    return icsim_check_scatterv(&c, a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcount, a->rtype, a->root);
  case ICSIM_COLL_ALLGATHER:
    return icsim_check_allgather(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype);
  case ICSIM_COLL_ALLGATHERV:
    return icsim_check_allgatherv(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype);
  case ICSIM_COLL_ALLTOALL:
    return icsim_check_alltoall(&c, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype);
  case ICSIM_COLL_ALLTOALLV:
    return icsim_check_alltoallv(&c, a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                                 a->rtype);
  case ICSIM_COLL_ALLTOALLW:
    return icsim_check_alltoallw(&c, a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts, a->rdispls,
                                 a->rtypes);
  case ICSIM_COLL_REDUCE_SCATTER:
    return icsim_check_reduce_scatter(&c, a->sbuf, a->rbuf, a->rcounts, a->rtype, a->op);
  case ICSIM_COLL_REDUCE_SCATTER_BLOCK:
  case ICSIM_COLL_SCAN:
  case ICSIM_COLL_EXSCAN: return icsim_check_scan(&c, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op);
  }
  return MPI_SUCCESS;
}

/* A new persistent collective request with the arguments in ARGS. */
static int make(const struct pcoll *args, MPI_Request *req, const char *fn)
{
  /* FN is the function's own name, which the entry bracket's renaming prefixed (gen_entries.py) */
  const char *call = strncmp(fn, "icsim_layer_", 12) ? fn : fn + 12;
  if (!req)
    return icsim_error(args->comm, call, MPI_ERR_ARG);
  int bad = check(args);
  if (!icsim_coll_runs(bad)) /* counts that disagree are found when the collective runs */
    return icsim_error(args->comm, call, bad);
  struct pcoll *p = malloc(sizeof *p);
  if (!p)
    return icsim_error(args->comm, call, MPI_ERR_NO_MEM);
  int rc = icsim_engine_stand_in(req);
  if (rc != MPI_SUCCESS) {
    free(p);
    return icsim_error(args->comm, call, rc);
  }
  *p = *args;
  p->h = *req;
  p->next = pcolls;
  pcolls = p;
  return MPI_SUCCESS;
}

static int run(const struct pcoll *p)
{
  switch (p->kind) {
  case ICSIM_COLL_BARRIER: return MPI_Barrier(p->comm);
  case ICSIM_COLL_BCAST: return MPI_Bcast(p->rbuf, p->rcount, p->rtype, p->root, p->comm);
  case ICSIM_COLL_REDUCE: return MPI_Reduce(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->root, p->comm);
  case ICSIM_COLL_ALLREDUCE: return MPI_Allreduce(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm);
  case ICSIM_COLL_GATHER: return MPI_Gather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->root, p->comm);
  case ICSIM_COLL_GATHERV:
    return MPI_Gatherv(p->sbuf, p->scount, p->stype, p->rbuf, p->rcounts, p->rdispls, p->rtype, p->root, p->comm);
  case ICSIM_COLL_SCATTER: return MPI_Scatter(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->root, p->comm);
  case ICSIM_COLL_SCATTERV:
    return MPI_Scatterv(p->sbuf, p->scounts, p->sdispls, p->stype, p->rbuf, p->rcount, p->rtype, p->root, p->comm);
  case ICSIM_COLL_ALLGATHER: return MPI_Allgather(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->comm);
  case ICSIM_COLL_ALLGATHERV:
    return MPI_Allgatherv(p->sbuf, p->scount, p->stype, p->rbuf, p->rcounts, p->rdispls, p->rtype, p->comm);
  case ICSIM_COLL_ALLTOALL: return MPI_Alltoall(p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype, p->comm);
  case ICSIM_COLL_ALLTOALLV:
    return MPI_Alltoallv(p->sbuf, p->scounts, p->sdispls, p->stype, p->rbuf, p->rcounts, p->rdispls, p->rtype,
                         p->comm);
  case ICSIM_COLL_ALLTOALLW:
    return MPI_Alltoallw(p->sbuf, p->scounts, p->sdispls, p->stypes, p->rbuf, p->rcounts, p->rdispls, p->rtypes,
                         p->comm);
  case ICSIM_COLL_REDUCE_SCATTER: return MPI_Reduce_scatter(p->sbuf, p->rbuf, p->rcounts, p->rtype, p->op, p->comm);
  case ICSIM_COLL_REDUCE_SCATTER_BLOCK: return MPI_Reduce_scatter_block(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm);
  case ICSIM_COLL_SCAN: return MPI_Scan(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm);
  case ICSIM_COLL_EXSCAN: return MPI_Exscan(p->sbuf, p->rbuf, p->rcount, p->rtype, p->op, p->comm);
  }
  return MPI_ERR_INTERN;
}

/* MPI_Start of one of these: the collective runs now. Returns 1 with *RC set if REQ is one. */
static int pcoll_start(MPI_Request *req, int *rc)
{
  struct pcoll *p = pcolls ? find(*req) : NULL;
  if (!p)
    return 0;
  *rc = run(p);
  return 1;
}

/* MPI_Request_free of one of these: forget it. Returns 1 if REQ was one. */
static int pcoll_free(MPI_Request *req)
{
  if (!pcolls || !req)
    return 0;
  for (struct pcoll **pp = &pcolls; *pp; pp = &(*pp)->next)
    if ((*pp)->h == *req) {
      struct pcoll *p = *pp;
      *pp = p->next;
      free(p);
      PMPI_Request_free(req);
      return 1;
    }
  return 0;
}

#define MAKE(...)                                                                                                  \
  do {                                                                                                             \
    (void)info;                                                                                                    \
    struct pcoll a = {.comm = comm, __VA_ARGS__};                                                                  \
    return make(&a, req, __func__);                                                                                          \
  } while (0)

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *req) { MAKE(.kind = ICSIM_COLL_BARRIER); }
int MPI_Bcast_init(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_BCAST, .rbuf = buf, .rcount = count, .rtype = type, .root = root);
}
int MPI_Reduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_REDUCE, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type, .op = op, .root = root);
}
int MPI_Allreduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type, .op = op);
}
int MPI_Gather_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_GATHER, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcount = rcount,
       .rtype = rtype, .root = root);
}
int MPI_Gatherv_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                     const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_GATHERV, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcounts = rcounts,
       .rdispls = displs, .rtype = rtype, .root = root);
}
int MPI_Scatter_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_SCATTER, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcount = rcount,
       .rtype = rtype, .root = root);
}
int MPI_Scatterv_init(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_SCATTERV, .sbuf = sbuf, .scounts = scounts, .sdispls = displs, .stype = stype, .rbuf = rbuf,
       .rcount = rcount, .rtype = rtype, .root = root);
}
int MPI_Allgather_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLGATHER, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcount = rcount,
       .rtype = rtype);
}
int MPI_Allgatherv_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                        const int *displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLGATHERV, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcounts = rcounts,
       .rdispls = displs, .rtype = rtype);
}
int MPI_Alltoall_init(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                      MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLTOALL, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf, .rcount = rcount,
       .rtype = rtype);
}
int MPI_Alltoallv_init(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                       const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLTOALLV, .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls, .stype = stype, .rbuf = rbuf,
       .rcounts = rcounts, .rdispls = rdispls, .rtype = rtype);
}
int MPI_Alltoallw_init(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
                       void *rbuf, const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_ALLTOALLW, .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls, .stypes = stypes, .rbuf = rbuf,
       .rcounts = rcounts, .rdispls = rdispls, .rtypes = rtypes);
}
int MPI_Reduce_scatter_init(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf, .rcounts = rcounts, .rtype = type, .op = op);
}
int MPI_Reduce_scatter_block_init(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_REDUCE_SCATTER_BLOCK, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type, .op = op);
}
int MPI_Scan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                  MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_SCAN, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type, .op = op);
}
int MPI_Exscan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request *req)
{
  MAKE(.kind = ICSIM_COLL_EXSCAN, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type, .op = op);
}

/* Its requests' kind (engine.c): MPI_Start runs the collective, MPI_Request_free forgets it. */
static const struct icsim_request_kind pcoll_kind = {.what = "persistent collective", .start = pcoll_start,
                                                     .free = pcoll_free};

__attribute__((constructor)) static void register_pcoll(void) { icsim_request_kind_add(&pcoll_kind); }
