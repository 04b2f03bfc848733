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
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/simix.hpp>

#include <climits>
#include <string>
#include <vector>

namespace simgrid::smpi {
class Datatype {
public:
  bool is_valid() const; /* committed (every predefined type is) */
  int extent(MPI_Aint* lb, MPI_Aint* extent) const;
  int get_envelope(int* num_integers, int* num_addresses, int* num_datatypes, int* combiner) const;
};
class Group {
public:
  aid_t actor(int rank) const; /* the pid of RANK's actor */
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
  void cancel();
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

/* The type a receive of the engine's is posted to SMPI with. SMPI 3.32 compares the sender's and
 * the receiver's predefined types at matching and, when they differ (MPI_INT sent, MPI_CHAR
 * received), ends the run under MPI_ERRORS_ARE_FATAL ("recv - returned MPI_ERR_TYPE"). The program
 * is erroneous (MPI 3.1, 3.3.1), but MPICH checks no type signatures: it delivers the bytes
 * (MPI_ERR_TRUNCATE if there are more than the buffer holds) and the receive succeeds, so the
 * program runs natively. A predefined type is COUNT contiguous elements of its extent with no
 * gaps, which SMPI copies as plain bytes anyway; posted as that many MPI_BYTE (which SMPI matches
 * with any type) it moves the same bytes at the same size and gives the same status, and the
 * program's receive behaves as under MPICH. Derived types are left alone (SMPI does not compare
 * them), as are invalid arguments (PMPI_Irecv reports them as before) and counts too large to
 * express in bytes. */
extern "C" void icsim_smpi_recv_type(int* count, MPI_Datatype* type)
{
  int ni, na, nd, combiner;
  MPI_Aint lb, extent;
  if (*count <= 0 || *type == MPI_BYTE || not icsim_type_valid(*type))
    return;
  (*type)->get_envelope(&ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED)
    return;
  (*type)->extent(&lb, &extent);
  if (lb != 0 || extent <= 0 || *count > INT_MAX / extent)
    return;
  *count *= static_cast<int>(extent);
  *type = MPI_BYTE;
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

/* Cancelling (engine.c, MPI_Cancel). SMPI 3.32's Request::cancel is safe only while the request
 * waits unmatched in a mailbox: CommImpl::cancel then takes it out. Once the receive and the send
 * have matched, the same call cancels the network action of the transfer in flight, which SimGrid
 * reports as a link failure to both ends (an exception SMPI's wait does not catch: the run dies),
 * where MPI says the cancel fails and both complete normally (MPI 3.1, 3.8.4).
 *
 * SMPI posts both sides to the receiving actor's mailbox "SMPI-<pid>" (or "small-<pid>" with
 * smpi/async-small-thresh set), and an activity queued there carries its request as its sender or
 * receiver data. queued_in looks for REQ among the queued activities of one kind (1: receives,
 * 0: sends) and always answers no match, so nothing is taken from the queue and SMPI's own
 * matching function is never called with our data. The look and the cancel are one simcall: a
 * rank running in the same scheduling round cannot match the request between them. */
static bool queued_in(aid_t pid, int kind, MPI_Request req)
{
  bool found = false;
  auto look  = [req, &found](void*, void* request, simgrid::kernel::activity::CommImpl*) {
    if (request == static_cast<void*>(req))
      found = true;
    return false;
  };
  std::string id = std::to_string(pid);
  for (const char* prefix : {"SMPI-", "small-"}) {
    simgrid::s4u::Mailbox::by_name(prefix + id)->iprobe(kind, look, nullptr); /* in maestro: no simcall */
    if (found)
      return true;
  }
  return false;
}

static int cancel_if_queued(MPI_Request req, int kind, const std::vector<aid_t>& pids)
{
  return simgrid::kernel::actor::simcall_answered([req, kind, &pids] {
    for (aid_t pid : pids)
      if (queued_in(pid, kind, req)) {
        req->cancel();
        return 1;
      }
    return 0;
  });
}

/* Cancel REQ, a receive of the calling rank still in flight, if it waits unmatched: 1 if so, 0 if
 * a message has matched it (it will complete normally). */
extern "C" int icsim_smpi_cancel_recv(MPI_Request req)
{
  return cancel_if_queued(req, 1, {simgrid::s4u::this_actor::get_pid()});
}

/* The same for REQ, a send of the calling rank (or any request of SMPI's), in the mailbox of one
 * of the world's ranks (the layer does not keep a send's destination: it looks in every one, a
 * cost paid by cancels only). */
extern "C" int icsim_smpi_cancel_send(MPI_Request req)
{
  MPI_Group world;
  int n = 0;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
    return 0;
  PMPI_Group_size(world, &n);
  std::vector<aid_t> pids;
  for (int i = 0; i < n; i++)
    pids.push_back(world->actor(i));
  PMPI_Group_free(&world);
  return cancel_if_queued(req, 0, pids);
}

/* Complete a request whose cancel took, as PMPI_Wait does. SimGrid 3.32 ends that wait by throwing
 * its cancellation through the simcall, which skips the line that clears the actor's current
 * simcall observer (src/simix/libsmx.cpp, simcall()): the actor keeps a pointer to the observer
 * the finished wait had on its stack. The next SMPI waitany builds its own observer, whose
 * constructor tests every activity it is given; a test of one still pending casts that stale
 * pointer (ActivityImpl::test) and crashes once the stack has been reused (MPICH's rcancel: three
 * receives cancelled and waited, then the engine's wait for the fourth, whose message is in
 * flight). One simcall
 * that ends normally clears it again: a yield, which takes no simulated time. */
extern "C" int icsim_smpi_wait_cancelled(MPI_Request* req, MPI_Status* st)
{
  int rc = PMPI_Wait(req, st);
  simgrid::s4u::this_actor::yield();
  return rc;
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
