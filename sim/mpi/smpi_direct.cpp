/* SMPI's request calls without the PMPI wrapper, for the layer's own messages.
 *
 * Every PMPI call of SMPI 3.32 checks MPI_Init/MPI_Finalize (two calls that each take a reference
 * to the calling actor), pauses and restarts the host-time benchmark (more actor references),
 * and allocates a trace record with a string for the datatype even with tracing off; PMPI_Waitany
 * copies and references every request it is given. The layer's collectives and its progress
 * engine make several such calls per message; at 64 ranks those wrappers cost more than the
 * messages' own simulation (perf: s4u intrusive_ptr add_ref/release 17% of the run, malloc 12%).
 *
 * So the layer calls the request functions under the wrappers (simgrid::smpi::Request::isend,
 * ::issend, ::irecv, ::waitany, ::testsome), which every PMPI call reaches in the end: the same
 * simulation, message for message. Only where nothing is lost:
 * - host timing off (icsim_direct_ok): with it on, SMPI times the program's code between PMPI
 *   calls and the pause the wrappers make must happen;
 * - arguments the PMPI checks would pass (icsim_direct_args_ok); otherwise the caller takes the
 *   PMPI call, which reports the error as before.
 *
 * The functions are exported by libsimgrid 3.32 (nm -DC: simgrid::smpi::Request::isend(void
 * const*, int, simgrid::smpi::Datatype*, int, int, simgrid::smpi::Comm*) ...) and declared in
 * src/smpi/include/smpi_request.hpp, which is not installed; we declare just those members with
 * the same signatures, as f2c.cpp does for the Fortran handle table. Keep them identical by hand
 * if SimGrid changes. */
#include <mpi.h>

namespace simgrid::smpi {
class Datatype {
public:
  bool is_valid() const; /* committed (every predefined type is) */
};
class Comm {
public:
  int id() const; /* the same on every rank: rank 0 of the parent broadcasts it at creation */
};
class Request {
public:
  static MPI_Request isend(const void* buf, int count, MPI_Datatype datatype, int dst, int tag, MPI_Comm comm);
  static MPI_Request issend(const void* buf, int count, MPI_Datatype datatype, int dst, int tag, MPI_Comm comm);
  static MPI_Request irecv(void* buf, int count, MPI_Datatype datatype, int src, int tag, MPI_Comm comm);
  static int waitany(int count, MPI_Request requests[], MPI_Status* status);
  static int testsome(int incount, MPI_Request requests[], int* outcount, int* indices, MPI_Status status[]);
  void ref();
  static void unref(MPI_Request* request);
};
} // namespace simgrid::smpi

using simgrid::smpi::Request;

/* What CHECK_ISEND_INPUTS / CHECK_IRECV_INPUTS would accept, for a peer and tag the layer chose on
 * a communicator of its own: a count not negative, a buffer when there is data, a committed type. */
/* What CHECK_TYPE accepts: a type, committed (the collectives' argument checks ask it too). */
extern "C" int icsim_type_valid(MPI_Datatype type)
{
  return type != MPI_DATATYPE_NULL && type != nullptr && type->is_valid();
}

extern "C" int icsim_direct_args_ok(const void* buf, int count, MPI_Datatype type)
{
  return count >= 0 && (buf != nullptr || count == 0) && icsim_type_valid(type);
}

extern "C" int icsim_smpi_isend(int synchronous, const void* buf, int count, MPI_Datatype type, int dst, int tag,
                                MPI_Comm comm, MPI_Request* req)
{
  *req = synchronous ? Request::issend(buf, count, type, dst, tag, comm) : Request::isend(buf, count, type, dst, tag, comm);
  return MPI_SUCCESS;
}

extern "C" int icsim_smpi_irecv(void* buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                                MPI_Request* req)
{
  *req = Request::irecv(buf, count, type, src, tag, comm);
  return MPI_SUCCESS;
}

/* As PMPI_Waitany for requests that are all live or null (the engine's). */
extern "C" int icsim_smpi_waitany(int n, MPI_Request* reqs, int* index, MPI_Status* st)
{
  *index = n > 0 ? Request::waitany(n, reqs, st) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

extern "C" int icsim_smpi_testsome(int n, MPI_Request* reqs, int* out, int* idx, MPI_Status* sts)
{
  return Request::testsome(n, reqs, out, idx, sts);
}

/* One more reference to REQ: it outlives SMPI's completion of it until MPI_Request_free (the
 * layer's cancel keeps a cancelled send's handle for the application this way). */
extern "C" void icsim_smpi_ref(MPI_Request req)
{
  req->ref();
}

extern "C" void icsim_smpi_unref(MPI_Request req)
{
  Request::unref(&req);
}

/* The identifier SMPI gives a communicator, the same on every member (used to order deferred
 * MPI_Comm_idup duplications alike on every rank: coll_nonblocking.c). */
extern "C" int icsim_smpi_comm_id(MPI_Comm comm)
{
  /* MPI_COMM_WORLD is a placeholder SMPI resolves per call (its id() would read it); MPI_COMM_SELF
   * has one member, so its place in the order does not matter to any other rank */
  if (comm == MPI_COMM_WORLD)
    return -2;
  if (comm == MPI_COMM_SELF)
    return -1;
  return comm->id();
}
