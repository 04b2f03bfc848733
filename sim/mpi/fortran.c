/* Fortran entry points of the MPI layer (gfortran naming: mpi_send_). Every Fortran binding of the
 * layer lives here, in sections named for the C file whose calls they reach; none elsewhere.
 *
 * Why: SMPI's own Fortran bindings (inside libsimgrid) call libsimgrid's MPI_* directly, so a
 * Fortran program never reaches the layer's C wrappers and its messages pay no stack CPU cost.
 * SMPI dlopens the program with RTLD_DEEPBIND and the program is linked against this library
 * before libsimgrid, so the definitions below win over libsimgrid's for the program.
 *
 * Each one converts Fortran handles with the public C API (MPI_*_f2c / MPI_*_c2f) and calls the
 * public C name MPI_*, whichever definition that resolves to (the layer's wrapper when it has
 * one, SMPI's otherwise): no knowledge of the layer's internals lives here.
 *
 * Covered: every call through which a message is sent, received or completed, the blocking and
 * non-blocking collectives, the one-sided calls (put, get, accumulate, their request forms, the
 * read-modify-write ones) and the window calls that send SMPI's own messages (creation, release,
 * synchronisation), the calls that create or free communicators (the layer may keep
 * per-communicator state, and SMPI's messages inside them are bracketed), the program's own error
 * classes, codes and strings and the calls that raise errors (errors.c, layer.c), and MPI_Init,
 * MPI_Init_thread, MPI_Finalize and MPI_Abort (lifecycle.c). Everything else stays SMPI's
 * binding.
 *
 * Facts about SMPI 3.32 this relies on (checked against its headers and f77 bindings):
 * - A Fortran handle is an index into one global table; MPI_*_f2c(-1) is the null handle and
 *   MPI_*_c2f(null) is -1 (MPI_FORTRAN_REQUEST_NULL, MPI_COMM_NULL in mpif.h).
 * - MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are `external` names in
 *   mpif.h / mpi.mod: the program passes the address of libsimgrid's int variables
 *   mpi_in_place_, mpi_bottom_, mpi_status_ignore_, mpi_statuses_ignore_.
 * - A Fortran status, INTEGER(MPI_STATUS_SIZE) with MPI_STATUS_SIZE = 5, is the C MPI_Status
 *   (five ints: MPI_SOURCE, MPI_TAG, MPI_ERROR at Fortran indices 1, 2, 3, then count and
 *   cancelled), so status arrays are passed through as they are (checked below at compile time).
 * - Indices returned by waitany/testany/waitsome/testsome are 1-based in Fortran.
 * - When a nonblocking request completes MPI frees it and nulls the C handle; its Fortran
 *   handle must become MPI_FORTRAN_REQUEST_NULL and its table entry be dropped (f2c.cpp).
 *   A persistent request stays allocated (inactive) and keeps its handle. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_STATUS_SIZE * sizeof(int), "Fortran status must be the C MPI_Status");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "default INTEGER handles");

/* Defined by libsimgrid (the addresses Fortran passes for its special constants). */
extern int mpi_in_place_, mpi_bottom_, mpi_status_ignore_, mpi_statuses_ignore_;

/* f2c.cpp: drop a Fortran handle from SMPI's table. */
void icsim_f2c_free(int id);
/* coll_nonblocking.c: MPI_Comm_idup duplicating at the call (the handle is converted at return) */
int icsim_comm_idup_at_call(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req);

/* Also answer to the double-underscore names (gfortran -fsecond-underscore, f2c convention);
 * smpiff compiles with -fno-second-underscore, so these are for programs built otherwise. */
#define ALIAS(name) extern __typeof(name##_) name##__ __attribute__((alias(#name "_")));

/* A Fortran buffer argument: the two special addresses become the C constants. Applied to every
 * buffer: MPI_BOTTOM is legal for any buffer, MPI_IN_PLACE only where MPI allows it (the C call
 * checks that). */
static void *fbuf(void *p)
{
  if (p == (void *)&mpi_in_place_)
    return MPI_IN_PLACE;
  if (p == (void *)&mpi_bottom_)
    return MPI_BOTTOM;
  return p;
}

static MPI_Status *fstatus(int *s)
{
  return s == &mpi_status_ignore_ || s == &mpi_statuses_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)s;
}

#define TYPE(f) MPI_Type_f2c(*(f))
#define COMM(f) MPI_Comm_f2c(*(f))
#define OP(f) MPI_Op_f2c(*(f))
#define WIN(f) MPI_Win_f2c(*(f))

/* ---- requests ---- */

/* C copies of N Fortran request handles (at least one element, freed by the caller). */
static MPI_Request *c_requests(int n, const int *f)
{
  MPI_Request *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  for (int i = 0; i < n; i++)
    c[i] = MPI_Request_f2c(f[i]);
  return c;
}

/* After a completion call: a request that MPI nulled is gone, so is its Fortran handle. */
static void settle(int *f, MPI_Request c)
{
  if (c == MPI_REQUEST_NULL && *f != MPI_FORTRAN_REQUEST_NULL) {
    icsim_f2c_free(*f);
    *f = MPI_FORTRAN_REQUEST_NULL;
  }
}

/* A new request (nonblocking start or persistent init): its Fortran handle, or null on error. */
static void new_request(int rc, MPI_Request c, int *f)
{
  *f = rc == MPI_SUCCESS ? MPI_Request_c2f(c) : MPI_FORTRAN_REQUEST_NULL;
}

/* ---- point to point ---- */

/* Blocking sends share one signature: mpi_<name>_(buf, count, type, dest, tag, comm, ierr). */
#define BLOCKING_SEND(lower, Cname)                                                                            \
  void lower##_(void *buf, int *count, int *type, int *dest, int *tag, int *comm, int *ierr)                   \
  {                                                                                                            \
    *ierr = Cname(fbuf(buf), *count, TYPE(type), *dest, *tag, COMM(comm));                                     \
  }                                                                                                            \
  ALIAS(lower)
/* Nonblocking sends and persistent inits: the same plus a request. */
#define REQUEST_SEND(lower, Cname)                                                                             \
  void lower##_(void *buf, int *count, int *type, int *dest, int *tag, int *comm, int *req, int *ierr)         \
  {                                                                                                            \
    MPI_Request r = MPI_REQUEST_NULL;                                                                          \
    *ierr = Cname(fbuf(buf), *count, TYPE(type), *dest, *tag, COMM(comm), &r);                                 \
    new_request(*ierr, r, req);                                                                                \
  }                                                                                                            \
  ALIAS(lower)

BLOCKING_SEND(mpi_send, MPI_Send)
BLOCKING_SEND(mpi_ssend, MPI_Ssend)
BLOCKING_SEND(mpi_rsend, MPI_Rsend)
BLOCKING_SEND(mpi_bsend, MPI_Bsend)
REQUEST_SEND(mpi_isend, MPI_Isend)
REQUEST_SEND(mpi_issend, MPI_Issend)
REQUEST_SEND(mpi_irsend, MPI_Irsend)
REQUEST_SEND(mpi_ibsend, MPI_Ibsend)
REQUEST_SEND(mpi_send_init, MPI_Send_init)
REQUEST_SEND(mpi_ssend_init, MPI_Ssend_init)
REQUEST_SEND(mpi_rsend_init, MPI_Rsend_init)
REQUEST_SEND(mpi_bsend_init, MPI_Bsend_init)
/* Receives have the same shape as sends (source for dest); only the buffer is not const. */
REQUEST_SEND(mpi_irecv, MPI_Irecv)
REQUEST_SEND(mpi_recv_init, MPI_Recv_init)

void mpi_recv_(void *buf, int *count, int *type, int *src, int *tag, int *comm, int *status, int *ierr)
{
  *ierr = MPI_Recv(fbuf(buf), *count, TYPE(type), *src, *tag, COMM(comm), fstatus(status));
}
ALIAS(mpi_recv)

void mpi_sendrecv_(void *sbuf, int *scount, int *stype, int *dest, int *stag, void *rbuf, int *rcount, int *rtype,
                   int *src, int *rtag, int *comm, int *status, int *ierr)
{
  *ierr = MPI_Sendrecv(fbuf(sbuf), *scount, TYPE(stype), *dest, *stag, fbuf(rbuf), *rcount, TYPE(rtype), *src, *rtag,
                       COMM(comm), fstatus(status));
}
ALIAS(mpi_sendrecv)

void mpi_sendrecv_replace_(void *buf, int *count, int *type, int *dest, int *stag, int *src, int *rtag, int *comm,
                           int *status, int *ierr)
{
  *ierr = MPI_Sendrecv_replace(fbuf(buf), *count, TYPE(type), *dest, *stag, *src, *rtag, COMM(comm), fstatus(status));
}
ALIAS(mpi_sendrecv_replace)

void mpi_probe_(int *src, int *tag, int *comm, int *status, int *ierr)
{
  *ierr = MPI_Probe(*src, *tag, COMM(comm), fstatus(status));
}
ALIAS(mpi_probe)

void mpi_iprobe_(int *src, int *tag, int *comm, int *flag, int *status, int *ierr)
{
  *ierr = MPI_Iprobe(*src, *tag, COMM(comm), flag, fstatus(status));
}
ALIAS(mpi_iprobe)

/* ---- starting and completing requests ---- */

void mpi_start_(int *req, int *ierr)
{
  MPI_Request r = MPI_Request_f2c(*req);
  *ierr = MPI_Start(&r);
}
ALIAS(mpi_start)

void mpi_startall_(int *n, int *reqs, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Startall(*n, r);
  free(r);
}
ALIAS(mpi_startall)

void mpi_wait_(int *req, int *status, int *ierr)
{
  MPI_Request r = MPI_Request_f2c(*req);
  *ierr = MPI_Wait(&r, fstatus(status));
  settle(req, r);
}
ALIAS(mpi_wait)

void mpi_test_(int *req, int *flag, int *status, int *ierr)
{
  MPI_Request r = MPI_Request_f2c(*req);
  *ierr = MPI_Test(&r, flag, fstatus(status));
  settle(req, r);
}
ALIAS(mpi_test)

void mpi_waitall_(int *n, int *reqs, int *statuses, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Waitall(*n, r, fstatus(statuses));
  for (int i = 0; i < *n; i++)
    settle(&reqs[i], r[i]);
  free(r);
}
ALIAS(mpi_waitall)

void mpi_testall_(int *n, int *reqs, int *flag, int *statuses, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Testall(*n, r, flag, fstatus(statuses));
  for (int i = 0; i < *n; i++)
    settle(&reqs[i], r[i]);
  free(r);
}
ALIAS(mpi_testall)

void mpi_waitany_(int *n, int *reqs, int *index, int *status, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Waitany(*n, r, index, fstatus(status));
  if (*index != MPI_UNDEFINED && *index >= 0) {
    settle(&reqs[*index], r[*index]);
    ++*index; /* Fortran counts from 1 */
  }
  free(r);
}
ALIAS(mpi_waitany)

void mpi_testany_(int *n, int *reqs, int *index, int *flag, int *status, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Testany(*n, r, index, flag, fstatus(status));
  if (*index != MPI_UNDEFINED && *index >= 0) {
    settle(&reqs[*index], r[*index]);
    ++*index;
  }
  free(r);
}
ALIAS(mpi_testany)

/* waitsome/testsome: OUTCOUNT completed, their 0-based positions in INDICES (MPI_UNDEFINED
 * when no request was active). */
static void settle_some(int *reqs, const MPI_Request *r, int outcount, int *indices)
{
  for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++) {
    settle(&reqs[indices[i]], r[indices[i]]);
    indices[i]++;
  }
}

void mpi_waitsome_(int *n, int *reqs, int *outcount, int *indices, int *statuses, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Waitsome(*n, r, outcount, indices, fstatus(statuses));
  settle_some(reqs, r, *outcount, indices);
  free(r);
}
ALIAS(mpi_waitsome)

void mpi_testsome_(int *n, int *reqs, int *outcount, int *indices, int *statuses, int *ierr)
{
  MPI_Request *r = c_requests(*n, reqs);
  *ierr = MPI_Testsome(*n, r, outcount, indices, fstatus(statuses));
  settle_some(reqs, r, *outcount, indices);
  free(r);
}
ALIAS(mpi_testsome)

/* The request is nulled by MPI (the operation, if active, still completes): so is the handle.
 * (SMPI's own binding leaves the Fortran handle set; MPI says it becomes MPI_REQUEST_NULL.) */
void mpi_request_free_(int *req, int *ierr)
{
  MPI_Request r = MPI_Request_f2c(*req);
  *ierr = MPI_Request_free(&r);
  if (*ierr == MPI_SUCCESS)
    settle(req, r);
}
ALIAS(mpi_request_free)

/* Does not free the request, even when complete (MPI 3.1 section 3.7.3). */
void mpi_request_get_status_(int *req, int *flag, int *status, int *ierr)
{
  *ierr = MPI_Request_get_status(MPI_Request_f2c(*req), flag, fstatus(status));
}
ALIAS(mpi_request_get_status)

void mpi_cancel_(int *req, int *ierr)
{
  MPI_Request r = MPI_Request_f2c(*req);
  *ierr = MPI_Cancel(&r);
}
ALIAS(mpi_cancel)

/* ---- one-sided ---- */

void mpi_put_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype, int *win,
              int *ierr)
{
  *ierr = MPI_Put(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), WIN(win));
}
ALIAS(mpi_put)

void mpi_get_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype, int *win,
              int *ierr)
{
  *ierr = MPI_Get(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), WIN(win));
}
ALIAS(mpi_get)

void mpi_accumulate_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype,
                     int *op, int *win, int *ierr)
{
  *ierr = MPI_Accumulate(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), OP(op), WIN(win));
}
ALIAS(mpi_accumulate)

void mpi_rput_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype, int *win,
               int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Rput(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), WIN(win), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_rput)

void mpi_rget_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype, int *win,
               int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Rget(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), WIN(win), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_rget)

void mpi_raccumulate_(void *obuf, int *ocount, int *otype, int *target, MPI_Aint *tdisp, int *tcount, int *ttype,
                      int *op, int *win, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Raccumulate(fbuf(obuf), *ocount, TYPE(otype), *target, *tdisp, *tcount, TYPE(ttype), OP(op), WIN(win), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_raccumulate)

void mpi_get_accumulate_(void *obuf, int *ocount, int *otype, void *rbuf, int *rcount, int *rtype, int *target,
                         MPI_Aint *tdisp, int *tcount, int *ttype, int *op, int *win, int *ierr)
{
  *ierr = MPI_Get_accumulate(fbuf(obuf), *ocount, TYPE(otype), fbuf(rbuf), *rcount, TYPE(rtype), *target, *tdisp,
                             *tcount, TYPE(ttype), OP(op), WIN(win));
}
ALIAS(mpi_get_accumulate)

void mpi_fetch_and_op_(void *obuf, void *rbuf, int *type, int *target, MPI_Aint *tdisp, int *op, int *win, int *ierr)
{
  *ierr = MPI_Fetch_and_op(fbuf(obuf), fbuf(rbuf), TYPE(type), *target, *tdisp, OP(op), WIN(win));
}
ALIAS(mpi_fetch_and_op)

void mpi_compare_and_swap_(void *obuf, void *cbuf, void *rbuf, int *type, int *target, MPI_Aint *tdisp, int *win,
                           int *ierr)
{
  *ierr = MPI_Compare_and_swap(fbuf(obuf), fbuf(cbuf), fbuf(rbuf), TYPE(type), *target, *tdisp, WIN(win));
}
ALIAS(mpi_compare_and_swap)

/* Windows: their creation, release and synchronisation send SMPI's own messages, which the
 * layer's C calls bracket (and creation records the members' bases, rma.c). */
void mpi_win_create_(void *base, MPI_Aint *size, int *disp, int *info, int *comm, int *win, int *ierr)
{
  MPI_Win w = MPI_WIN_NULL;
  *ierr = MPI_Win_create(fbuf(base), *size, *disp, MPI_Info_f2c(*info), COMM(comm), &w);
  *win = *ierr == MPI_SUCCESS ? MPI_Win_c2f(w) : -1;
}
ALIAS(mpi_win_create)

/* BASE: INTEGER(KIND=MPI_ADDRESS_KIND), which receives the memory's address. */
void mpi_win_allocate_(MPI_Aint *size, int *disp, int *info, int *comm, MPI_Aint *base, int *win, int *ierr)
{
  MPI_Win w = MPI_WIN_NULL;
  *ierr = MPI_Win_allocate(*size, *disp, MPI_Info_f2c(*info), COMM(comm), base, &w);
  *win = *ierr == MPI_SUCCESS ? MPI_Win_c2f(w) : -1;
}
ALIAS(mpi_win_allocate)

void mpi_win_free_(int *win, int *ierr)
{
  MPI_Win w = WIN(win);
  *ierr = MPI_Win_free(&w);
  if (*ierr == MPI_SUCCESS) {
    icsim_f2c_free(*win);
    *win = -1;
  }
}
ALIAS(mpi_win_free)

void mpi_win_fence_(int *assert, int *win, int *ierr) { *ierr = MPI_Win_fence(*assert, WIN(win)); }
ALIAS(mpi_win_fence)
void mpi_win_start_(int *group, int *assert, int *win, int *ierr)
{
  *ierr = MPI_Win_start(MPI_Group_f2c(*group), *assert, WIN(win));
}
ALIAS(mpi_win_start)
void mpi_win_post_(int *group, int *assert, int *win, int *ierr)
{
  *ierr = MPI_Win_post(MPI_Group_f2c(*group), *assert, WIN(win));
}
ALIAS(mpi_win_post)
void mpi_win_complete_(int *win, int *ierr) { *ierr = MPI_Win_complete(WIN(win)); }
ALIAS(mpi_win_complete)
void mpi_win_wait_(int *win, int *ierr) { *ierr = MPI_Win_wait(WIN(win)); }
ALIAS(mpi_win_wait)
void mpi_win_test_(int *win, int *flag, int *ierr) { *ierr = MPI_Win_test(WIN(win), flag); }
ALIAS(mpi_win_test)
void mpi_win_lock_(int *type, int *rank, int *assert, int *win, int *ierr)
{
  *ierr = MPI_Win_lock(*type, *rank, *assert, WIN(win));
}
ALIAS(mpi_win_lock)
void mpi_win_unlock_(int *rank, int *win, int *ierr) { *ierr = MPI_Win_unlock(*rank, WIN(win)); }
ALIAS(mpi_win_unlock)
void mpi_win_lock_all_(int *assert, int *win, int *ierr) { *ierr = MPI_Win_lock_all(*assert, WIN(win)); }
ALIAS(mpi_win_lock_all)
void mpi_win_unlock_all_(int *win, int *ierr) { *ierr = MPI_Win_unlock_all(WIN(win)); }
ALIAS(mpi_win_unlock_all)
void mpi_win_flush_(int *rank, int *win, int *ierr) { *ierr = MPI_Win_flush(*rank, WIN(win)); }
ALIAS(mpi_win_flush)
void mpi_win_flush_all_(int *win, int *ierr) { *ierr = MPI_Win_flush_all(WIN(win)); }
ALIAS(mpi_win_flush_all)
void mpi_win_flush_local_(int *rank, int *win, int *ierr) { *ierr = MPI_Win_flush_local(*rank, WIN(win)); }
ALIAS(mpi_win_flush_local)
void mpi_win_flush_local_all_(int *win, int *ierr) { *ierr = MPI_Win_flush_local_all(WIN(win)); }
ALIAS(mpi_win_flush_local_all)

/* ---- blocking collectives ---- */

void mpi_barrier_(int *comm, int *ierr) { *ierr = MPI_Barrier(COMM(comm)); }
ALIAS(mpi_barrier)

void mpi_bcast_(void *buf, int *count, int *type, int *root, int *comm, int *ierr)
{
  *ierr = MPI_Bcast(fbuf(buf), *count, TYPE(type), *root, COMM(comm));
}
ALIAS(mpi_bcast)

void mpi_reduce_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *root, int *comm, int *ierr)
{
  *ierr = MPI_Reduce(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), *root, COMM(comm));
}
ALIAS(mpi_reduce)

void mpi_allreduce_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *comm, int *ierr)
{
  *ierr = MPI_Allreduce(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), COMM(comm));
}
ALIAS(mpi_allreduce)

void mpi_reduce_scatter_(void *sbuf, void *rbuf, int *rcounts, int *type, int *op, int *comm, int *ierr)
{
  *ierr = MPI_Reduce_scatter(fbuf(sbuf), fbuf(rbuf), rcounts, TYPE(type), OP(op), COMM(comm));
}
ALIAS(mpi_reduce_scatter)

void mpi_reduce_scatter_block_(void *sbuf, void *rbuf, int *rcount, int *type, int *op, int *comm, int *ierr)
{
  *ierr = MPI_Reduce_scatter_block(fbuf(sbuf), fbuf(rbuf), *rcount, TYPE(type), OP(op), COMM(comm));
}
ALIAS(mpi_reduce_scatter_block)

void mpi_scan_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *comm, int *ierr)
{
  *ierr = MPI_Scan(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), COMM(comm));
}
ALIAS(mpi_scan)

void mpi_exscan_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *comm, int *ierr)
{
  *ierr = MPI_Exscan(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), COMM(comm));
}
ALIAS(mpi_exscan)

void mpi_gather_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *root, int *comm,
                 int *ierr)
{
  *ierr = MPI_Gather(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm));
}
ALIAS(mpi_gather)

void mpi_gatherv_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcounts, int *displs, int *rtype, int *root,
                  int *comm, int *ierr)
{
  *ierr = MPI_Gatherv(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), rcounts, displs, TYPE(rtype), *root, COMM(comm));
}
ALIAS(mpi_gatherv)

void mpi_scatter_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *root, int *comm,
                  int *ierr)
{
  *ierr = MPI_Scatter(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm));
}
ALIAS(mpi_scatter)

void mpi_scatterv_(void *sbuf, int *scounts, int *displs, int *stype, void *rbuf, int *rcount, int *rtype, int *root,
                   int *comm, int *ierr)
{
  *ierr = MPI_Scatterv(fbuf(sbuf), scounts, displs, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm));
}
ALIAS(mpi_scatterv)

void mpi_allgather_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *comm, int *ierr)
{
  *ierr = MPI_Allgather(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), COMM(comm));
}
ALIAS(mpi_allgather)

void mpi_allgatherv_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcounts, int *displs, int *rtype,
                     int *comm, int *ierr)
{
  *ierr = MPI_Allgatherv(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), rcounts, displs, TYPE(rtype), COMM(comm));
}
ALIAS(mpi_allgatherv)

void mpi_alltoall_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *comm, int *ierr)
{
  *ierr = MPI_Alltoall(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), COMM(comm));
}
ALIAS(mpi_alltoall)

void mpi_alltoallv_(void *sbuf, int *scounts, int *sdispls, int *stype, void *rbuf, int *rcounts, int *rdispls,
                    int *rtype, int *comm, int *ierr)
{
  *ierr = MPI_Alltoallv(fbuf(sbuf), scounts, sdispls, TYPE(stype), fbuf(rbuf), rcounts, rdispls, TYPE(rtype),
                        COMM(comm));
}
ALIAS(mpi_alltoallv)

/* One type per peer: both arrays converted (send types are ignored, maybe garbage, in place).
 * REQ: the non-blocking form's request, or NULL for the blocking one. */
static int alltoallw(void *sbuf, int *scounts, int *sdispls, int *stypes, void *rbuf, int *rcounts, int *rdispls,
                     int *rtypes, int *comm, MPI_Request *req)
{
  MPI_Comm c = COMM(comm);
  int n = 0;
  MPI_Comm_size(c, &n);
  void *s = fbuf(sbuf);
  MPI_Datatype *st = calloc((size_t)(n > 0 ? n : 1), sizeof *st), *rt = calloc((size_t)(n > 0 ? n : 1), sizeof *rt);
  for (int i = 0; i < n; i++) {
    st[i] = s == MPI_IN_PLACE ? MPI_DATATYPE_NULL : MPI_Type_f2c(stypes[i]);
    rt[i] = MPI_Type_f2c(rtypes[i]);
  }
  int rc = req ? MPI_Ialltoallw(s, scounts, sdispls, st, fbuf(rbuf), rcounts, rdispls, rt, c, req)
               : MPI_Alltoallw(s, scounts, sdispls, st, fbuf(rbuf), rcounts, rdispls, rt, c);
  free(st);
  free(rt);
  return rc;
}

void mpi_alltoallw_(void *sbuf, int *scounts, int *sdispls, int *stypes, void *rbuf, int *rcounts, int *rdispls,
                    int *rtypes, int *comm, int *ierr)
{
  *ierr = alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, NULL);
}
ALIAS(mpi_alltoallw)


/* ---- non-blocking collectives (each returns a request the layer has completed) ---- */

void mpi_ibarrier_(int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ibarrier(COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ibarrier)

void mpi_ibcast_(void *buf, int *count, int *type, int *root, int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ibcast(fbuf(buf), *count, TYPE(type), *root, COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ibcast)

void mpi_ireduce_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *root, int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ireduce(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), *root, COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ireduce)

/* MPI_Iallreduce, MPI_Iscan and MPI_Iexscan share one signature. */
#define NBC_REDUCE(lower, Cname)                                                                               \
  void lower##_(void *sbuf, void *rbuf, int *count, int *type, int *op, int *comm, int *req, int *ierr)         \
  {                                                                                                            \
    MPI_Request r = MPI_REQUEST_NULL;                                                                          \
    *ierr = Cname(fbuf(sbuf), fbuf(rbuf), *count, TYPE(type), OP(op), COMM(comm), &r);                         \
    new_request(*ierr, r, req);                                                                                \
  }                                                                                                            \
  ALIAS(lower)
NBC_REDUCE(mpi_iallreduce, MPI_Iallreduce)
NBC_REDUCE(mpi_iscan, MPI_Iscan)
NBC_REDUCE(mpi_iexscan, MPI_Iexscan)
NBC_REDUCE(mpi_ireduce_scatter_block, MPI_Ireduce_scatter_block)

void mpi_ireduce_scatter_(void *sbuf, void *rbuf, int *rcounts, int *type, int *op, int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ireduce_scatter(fbuf(sbuf), fbuf(rbuf), rcounts, TYPE(type), OP(op), COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ireduce_scatter)

/* MPI_Igather and MPI_Iscatter share one signature. */
#define NBC_ROOTED(lower, Cname)                                                                               \
  void lower##_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *root, int *comm, \
                int *req, int *ierr)                                                                           \
  {                                                                                                            \
    MPI_Request r = MPI_REQUEST_NULL;                                                                          \
    *ierr = Cname(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm), &r);  \
    new_request(*ierr, r, req);                                                                                \
  }                                                                                                            \
  ALIAS(lower)
NBC_ROOTED(mpi_igather, MPI_Igather)
NBC_ROOTED(mpi_iscatter, MPI_Iscatter)

void mpi_igatherv_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcounts, int *displs, int *rtype, int *root,
                   int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Igatherv(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), rcounts, displs, TYPE(rtype), *root, COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_igatherv)

void mpi_iscatterv_(void *sbuf, int *scounts, int *displs, int *stype, void *rbuf, int *rcount, int *rtype, int *root,
                    int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iscatterv(fbuf(sbuf), scounts, displs, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_iscatterv)

/* MPI_Iallgather and MPI_Ialltoall share one signature. */
#define NBC_ALL(lower, Cname)                                                                                  \
  void lower##_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *comm, int *req,  \
                int *ierr)                                                                                     \
  {                                                                                                            \
    MPI_Request r = MPI_REQUEST_NULL;                                                                          \
    *ierr = Cname(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), COMM(comm), &r);         \
    new_request(*ierr, r, req);                                                                                \
  }                                                                                                            \
  ALIAS(lower)
NBC_ALL(mpi_iallgather, MPI_Iallgather)
NBC_ALL(mpi_ialltoall, MPI_Ialltoall)

void mpi_iallgatherv_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcounts, int *displs, int *rtype,
                      int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iallgatherv(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), rcounts, displs, TYPE(rtype), COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_iallgatherv)

void mpi_ialltoallv_(void *sbuf, int *scounts, int *sdispls, int *stype, void *rbuf, int *rcounts, int *rdispls,
                     int *rtype, int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ialltoallv(fbuf(sbuf), scounts, sdispls, TYPE(stype), fbuf(rbuf), rcounts, rdispls, TYPE(rtype),
                         COMM(comm), &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ialltoallv)

void mpi_ialltoallw_(void *sbuf, int *scounts, int *sdispls, int *stypes, void *rbuf, int *rcounts, int *rdispls,
                     int *rtypes, int *comm, int *req, int *ierr)
{
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, &r);
  new_request(*ierr, r, req);
}
ALIAS(mpi_ialltoallw)

/* ---- communicators ---- */

/* A new communicator's Fortran handle (MPI_COMM_NULL, -1, for none, e.g. split with
 * MPI_UNDEFINED). */
static void new_comm(int rc, MPI_Comm c, int *f) { *f = rc == MPI_SUCCESS ? MPI_Comm_c2f(c) : -1; }

void mpi_comm_dup_(int *comm, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_dup(COMM(comm), &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_dup)

/* Intercommunicators are the layer's (intercomm.c): their making, merging and queries, and the
 * sizes, ranks and groups every program asks for, which answer for the local group of one. */
void mpi_intercomm_create_(int *local, int *local_leader, int *peer, int *remote_leader, int *tag, int *newcomm,
                           int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Intercomm_create(COMM(local), *local_leader, COMM(peer), *remote_leader, *tag, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_intercomm_create)

void mpi_intercomm_merge_(int *inter, int *high, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Intercomm_merge(COMM(inter), *high, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_intercomm_merge)

void mpi_comm_test_inter_(int *comm, int *flag, int *ierr) { *ierr = MPI_Comm_test_inter(COMM(comm), flag); }
ALIAS(mpi_comm_test_inter)
void mpi_comm_remote_size_(int *comm, int *size, int *ierr) { *ierr = MPI_Comm_remote_size(COMM(comm), size); }
ALIAS(mpi_comm_remote_size)
void mpi_comm_size_(int *comm, int *size, int *ierr) { *ierr = MPI_Comm_size(COMM(comm), size); }
ALIAS(mpi_comm_size)
void mpi_comm_rank_(int *comm, int *rank, int *ierr) { *ierr = MPI_Comm_rank(COMM(comm), rank); }
ALIAS(mpi_comm_rank)

/* A group a call made: its Fortran handle, -1 when the call failed (as new_comm) */
#define GROUP_OUT(fname, call)                                                                                     \
  void fname##_(int *comm, int *group, int *ierr)                                                                  \
  {                                                                                                                \
    MPI_Group g = MPI_GROUP_NULL;                                                                                  \
    *ierr = call(COMM(comm), &g);                                                                                  \
    *group = *ierr == MPI_SUCCESS ? MPI_Group_c2f(g) : -1;                                                         \
  }                                                                                                                \
  ALIAS(fname)
GROUP_OUT(mpi_comm_remote_group, MPI_Comm_remote_group)
GROUP_OUT(mpi_comm_group, MPI_Comm_group)

void mpi_comm_split_(int *comm, int *color, int *key, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_split(COMM(comm), *color, *key, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_split)

void mpi_comm_create_(int *comm, int *group, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_create(COMM(comm), MPI_Group_f2c(*group), &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_create)

void mpi_comm_create_group_(int *comm, int *group, int *tag, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_create_group(COMM(comm), MPI_Group_f2c(*group), *tag, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_create_group)

void mpi_comm_split_type_(int *comm, int *type, int *key, int *info, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_split_type(COMM(comm), *type, *key, MPI_Info_f2c(*info), &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_split_type)

void mpi_comm_idup_(int *comm, int *newcomm, int *req, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = icsim_comm_idup_at_call(COMM(comm), &c, &r); /* the handle is converted now: no deferral */
  new_comm(*ierr, c, newcomm);
  new_request(*ierr, r, req);
}
ALIAS(mpi_comm_idup)

void mpi_comm_dup_with_info_(int *comm, int *info, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_dup_with_info(COMM(comm), MPI_Info_f2c(*info), &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_comm_dup_with_info)

/* Fortran LOGICAL arrays (gfortran: 1 true, 0 false) are the C ints these calls take. */
void mpi_cart_create_(int *comm, int *ndims, int *dims, int *periods, int *reorder, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Cart_create(COMM(comm), *ndims, dims, periods, *reorder, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_cart_create)

void mpi_cart_sub_(int *comm, int *remain, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Cart_sub(COMM(comm), remain, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_cart_sub)

/* Freed through the C call (SMPI's binding destroys the object itself, so a layer keeping
 * per-communicator state would never hear of it); then the handle leaves the table and becomes
 * MPI_COMM_NULL (-1). Freeing MPI_COMM_WORLD or MPI_COMM_SELF is erroneous: refused here, as
 * SMPI's C call would destroy MPI_COMM_SELF. */
static void free_comm(int (*fn)(MPI_Comm *), int *comm, int *ierr)
{
  MPI_Comm c = COMM(comm);
  if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF) {
    *ierr = MPI_ERR_COMM;
    return;
  }
  *ierr = fn(&c);
  if (*ierr == MPI_SUCCESS) {
    icsim_f2c_free(*comm);
    *comm = -1;
  }
}

void mpi_comm_free_(int *comm, int *ierr) { free_comm(MPI_Comm_free, comm, ierr); }
ALIAS(mpi_comm_free)

void mpi_comm_disconnect_(int *comm, int *ierr) { free_comm(MPI_Comm_disconnect, comm, ierr); }
ALIAS(mpi_comm_disconnect)

/* ---- start and end (lifecycle.c) ---- */

/* SMPI's own mpi_init_ would call its MPI_Init, not the layer's: the rank would miss the placement
 * check and the record of how it ends. PMPI_Init sets up SMPI's Fortran handles itself. */
void mpi_init_(int *ierr) { *ierr = MPI_Init(NULL, NULL); }
ALIAS(mpi_init)

void mpi_init_thread_(int *required, int *provided, int *ierr)
{
  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}
ALIAS(mpi_init_thread)

void mpi_finalize_(int *ierr) { *ierr = MPI_Finalize(); }
ALIAS(mpi_finalize)

/* SMPI's mpi_abort_ ends the run with status 0; the layer's MPI_Abort with the error code. */
void mpi_abort_(int *comm, int *code, int *ierr) { *ierr = MPI_Abort(COMM(comm), *code); }
ALIAS(mpi_abort)

/* ---- the program's own error classes, codes and strings (errors.c), raising errors ---- */

void mpi_add_error_class_(int *cls, int *ierr) { *ierr = MPI_Add_error_class(cls); }
ALIAS(mpi_add_error_class)

void mpi_add_error_code_(int *cls, int *code, int *ierr) { *ierr = MPI_Add_error_code(*cls, code); }
ALIAS(mpi_add_error_code)

/* A Fortran CHARACTER argument: LEN bytes, blank-padded, no terminator (the trailing blanks are
 * not part of the string). */
void mpi_add_error_string_(int *code, char *s, int *ierr, size_t len)
{
  while (len > 0 && s[len - 1] == ' ')
    len--;
  char c[MPI_MAX_ERROR_STRING];
  size_t n = len < sizeof c - 1 ? len : sizeof c - 1;
  memcpy(c, s, n);
  c[n] = '\0';
  *ierr = MPI_Add_error_string(*code, c);
}
ALIAS(mpi_add_error_string)

void mpi_error_class_(int *code, int *cls, int *ierr) { *ierr = MPI_Error_class(*code, cls); }
ALIAS(mpi_error_class)

/* The string into the Fortran CHARACTER argument, blank-padded to its length. */
void mpi_error_string_(int *code, char *s, int *resultlen, int *ierr, size_t len)
{
  char c[MPI_MAX_ERROR_STRING];
  int n = 0;
  *ierr = MPI_Error_string(*code, c, &n);
  if (*ierr != MPI_SUCCESS)
    return;
  size_t m = (size_t)n < len ? (size_t)n : len;
  memcpy(s, c, m);
  memset(s + m, ' ', len - m);
  *resultlen = (int)m;
}
ALIAS(mpi_error_string)

void mpi_comm_call_errhandler_(int *comm, int *code, int *ierr) { *ierr = MPI_Comm_call_errhandler(COMM(comm), *code); }
ALIAS(mpi_comm_call_errhandler)

void mpi_win_call_errhandler_(int *win, int *code, int *ierr) { *ierr = MPI_Win_call_errhandler(WIN(win), *code); }
ALIAS(mpi_win_call_errhandler)

/* SMPI's mpi_errhandler_free_ drops the handler's Fortran handle from its table at every free, but
 * the handle is shared: MPI_Comm_get_errhandler hands out the same one, so after freeing that copy
 * the program's own free threw out of SMPI's table (MPICH's commerrf aborted, under plain SMPI
 * too). The handle stays in the table; the program's variable becomes MPI_ERRHANDLER_NULL. */
void mpi_errhandler_free_(int *eh, int *ierr)
{
  MPI_Errhandler h = MPI_Errhandler_f2c(*eh);
  *ierr = MPI_Errhandler_free(&h);
  if (*ierr == MPI_SUCCESS)
    *eh = -1; /* MPI_ERRHANDLER_NULL in mpif.h */
}
ALIAS(mpi_errhandler_free)

/* SMPI 3.32 has no Fortran binding for the window error-handler calls (MPICH's f77/f90 winerrf did
 * not link). The handler function is called as SMPI calls C handlers (window and code by
 * address). */
void mpi_win_create_errhandler_(void *fn, int *eh, int *ierr)
{
  MPI_Errhandler h;
  *ierr = MPI_Win_create_errhandler((MPI_Win_errhandler_function *)fn, &h);
  if (*ierr == MPI_SUCCESS)
    *eh = MPI_Errhandler_c2f(h);
}
ALIAS(mpi_win_create_errhandler)

void mpi_win_set_errhandler_(int *win, int *eh, int *ierr) { *ierr = MPI_Win_set_errhandler(WIN(win), MPI_Errhandler_f2c(*eh)); }
ALIAS(mpi_win_set_errhandler)

void mpi_win_get_errhandler_(int *win, int *eh, int *ierr)
{
  MPI_Errhandler h;
  *ierr = MPI_Win_get_errhandler(WIN(win), &h);
  if (*ierr == MPI_SUCCESS)
    *eh = MPI_Errhandler_c2f(h);
}
ALIAS(mpi_win_get_errhandler)

/* ---- topologies and neighbourhood collectives (topology.c; SMPI's are stubs) ---- */

/* SMPI's mpif.h numbers the kinds from 0 (MPI_GRAPH 0, MPI_CART 1, MPI_DIST_GRAPH 2), its C header from 1. */
void mpi_topo_test_(int *comm, int *status, int *ierr)
{
  int c = MPI_UNDEFINED;
  *ierr = MPI_Topo_test(COMM(comm), &c);
  *status = c == MPI_GRAPH ? 0 : c == MPI_CART ? 1 : c == MPI_DIST_GRAPH ? 2 : c;
}
ALIAS(mpi_topo_test)

void mpi_graph_create_(int *comm, int *nnodes, int *index, int *edges, int *reorder, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Graph_create(COMM(comm), *nnodes, index, edges, *reorder, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_graph_create)

void mpi_graphdims_get_(int *comm, int *nnodes, int *nedges, int *ierr)
{
  *ierr = MPI_Graphdims_get(COMM(comm), nnodes, nedges);
}
ALIAS(mpi_graphdims_get)

void mpi_graph_get_(int *comm, int *maxindex, int *maxedges, int *index, int *edges, int *ierr)
{
  *ierr = MPI_Graph_get(COMM(comm), *maxindex, *maxedges, index, edges);
}
ALIAS(mpi_graph_get)

void mpi_graph_neighbors_count_(int *comm, int *rank, int *n, int *ierr)
{
  *ierr = MPI_Graph_neighbors_count(COMM(comm), *rank, n);
}
ALIAS(mpi_graph_neighbors_count)

void mpi_graph_neighbors_(int *comm, int *rank, int *max, int *nbrs, int *ierr)
{
  *ierr = MPI_Graph_neighbors(COMM(comm), *rank, *max, nbrs);
}
ALIAS(mpi_graph_neighbors)

void mpi_graph_map_(int *comm, int *nnodes, int *index, int *edges, int *newrank, int *ierr)
{
  *ierr = MPI_Graph_map(COMM(comm), *nnodes, index, edges, newrank);
}
ALIAS(mpi_graph_map)

void mpi_cart_map_(int *comm, int *ndims, int *dims, int *periods, int *newrank, int *ierr)
{
  *ierr = MPI_Cart_map(COMM(comm), *ndims, dims, periods, newrank);
}
ALIAS(mpi_cart_map)

void mpi_type_match_size_(int *typeclass, int *size, int *type, int *ierr)
{
  MPI_Datatype t = MPI_DATATYPE_NULL;
  *ierr = MPI_Type_match_size(*typeclass, *size, &t);
  if (*ierr == MPI_SUCCESS)
    *type = MPI_Type_c2f(t);
}
ALIAS(mpi_type_match_size)

void mpi_dims_create_(int *nnodes, int *ndims, int *dims, int *ierr) { *ierr = MPI_Dims_create(*nnodes, *ndims, dims); }
ALIAS(mpi_dims_create)

/* SMPI 3.32's mpif.h and mpi module define no MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY: a Fortran program
 * gives weight arrays, which are passed on as they are. */
void mpi_dist_graph_create_adjacent_(int *comm, int *indeg, int *sources, int *sw, int *outdeg, int *dests, int *dw,
                                     int *info, int *reorder, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Dist_graph_create_adjacent(COMM(comm), *indeg, sources, sw, *outdeg, dests, dw,
                                         MPI_Info_f2c(*info), *reorder, &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_dist_graph_create_adjacent)

void mpi_dist_graph_create_(int *comm, int *n, int *sources, int *degrees, int *dests, int *w, int *info,
                            int *reorder, int *newcomm, int *ierr)
{
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Dist_graph_create(COMM(comm), *n, sources, degrees, dests, w, MPI_Info_f2c(*info), *reorder,
                                &c);
  new_comm(*ierr, c, newcomm);
}
ALIAS(mpi_dist_graph_create)

void mpi_dist_graph_neighbors_count_(int *comm, int *indeg, int *outdeg, int *weighted, int *ierr)
{
  *ierr = MPI_Dist_graph_neighbors_count(COMM(comm), indeg, outdeg, weighted);
}
ALIAS(mpi_dist_graph_neighbors_count)

void mpi_dist_graph_neighbors_(int *comm, int *maxin, int *sources, int *sw, int *maxout, int *dests, int *dw,
                               int *ierr)
{
  *ierr = MPI_Dist_graph_neighbors(COMM(comm), *maxin, sources, sw, *maxout, dests,
                                   dw);
}
ALIAS(mpi_dist_graph_neighbors)

void mpi_neighbor_allgather_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *comm,
                             int *ierr)
{
  *ierr = MPI_Neighbor_allgather(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), COMM(comm));
}
ALIAS(mpi_neighbor_allgather)

void mpi_neighbor_allgatherv_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcounts, int *displs,
                              int *rtype, int *comm, int *ierr)
{
  *ierr = MPI_Neighbor_allgatherv(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), rcounts, displs, TYPE(rtype),
                                  COMM(comm));
}
ALIAS(mpi_neighbor_allgatherv)

void mpi_neighbor_alltoall_(void *sbuf, int *scount, int *stype, void *rbuf, int *rcount, int *rtype, int *comm,
                            int *ierr)
{
  *ierr = MPI_Neighbor_alltoall(fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), *rcount, TYPE(rtype), COMM(comm));
}
ALIAS(mpi_neighbor_alltoall)

void mpi_neighbor_alltoallv_(void *sbuf, int *scounts, int *sdispls, int *stype, void *rbuf, int *rcounts,
                             int *rdispls, int *rtype, int *comm, int *ierr)
{
  *ierr = MPI_Neighbor_alltoallv(fbuf(sbuf), scounts, sdispls, TYPE(stype), fbuf(rbuf), rcounts, rdispls,
                                 TYPE(rtype), COMM(comm));
}
ALIAS(mpi_neighbor_alltoallv)

/* ---- datatypes: element counts (elements.c) ---- */

/* The status is the C one (fstatus above); MPI_STATUS_IGNORE is not allowed here. */
void mpi_get_elements_(int *status, int *type, int *count, int *ierr);
void mpi_get_elements_(int *status, int *type, int *count, int *ierr)
{
  *ierr = MPI_Get_elements((MPI_Status *)status, MPI_Type_f2c(*type), count);
}

/* ---- refused or without effect (unsupported.c) ---- */

/* MPI-IO: the same refusal as from C (the program would otherwise reach SMPI's own binding). The
 * handles are not converted: nothing is opened. */
void mpi_file_open_(int *comm, char *filename, int *amode, int *info, int *fh, int *ierr, size_t len);
void mpi_file_open_(int *comm, char *filename, int *amode, int *info, int *fh, int *ierr, size_t len)
{
  (void)comm, (void)amode, (void)info, (void)fh, (void)len;
  *ierr = MPI_File_open(MPI_COMM_NULL, filename, 0, MPI_INFO_NULL, NULL);
}

void mpi_file_delete_(char *filename, int *info, int *ierr, size_t len);
void mpi_file_delete_(char *filename, int *info, int *ierr, size_t len)
{
  (void)info, (void)len;
  *ierr = MPI_File_delete(filename, MPI_INFO_NULL);
}

void mpi_pcontrol_(int *level, int *ierr);
void mpi_pcontrol_(int *level, int *ierr)
{
  (void)level;
  *ierr = MPI_SUCCESS;
}
