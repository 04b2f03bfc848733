/* Matched probes (MPI 3.1, 3.8.2): MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv. SimGrid's SMPI
 * 3.32 has none of them. A matched probe must take the message out of matching at once, so that
 * no later probe or receive sees it again; the only way to do that in SMPI is to receive it. So the
 * probe posts a receive of the message's bytes, from its source with its tag (the first such message
 * in the queue is the one probed: messages from one source with one tag do not overtake each other),
 * into a buffer of the layer's. The receive goes through the progress engine like any other, so the
 * message pays the stacks' costs and lands whenever the rank is inside MPI. MPI_Mrecv waits for it
 * and unpacks the bytes into the program's buffer with the program's datatype (SMPI sent them packed).
 *
 * MPI_Imrecv completes the receive before it returns, then hands back a request that is already
 * complete. That cannot deadlock: the message is matched, and a matched message moves in SMPI
 * without further calls from either side. What the program loses is only the overlap of that
 * transfer with its own work after MPI_Imrecv.
 *
 * SMPI's header makes MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC the same (NULL): a message from
 * MPI_PROC_NULL is that null, and receiving it returns the empty status of MPI_PROC_NULL. Fortran
 * programs cannot use matched probes under SMPI: its mpif.h and mpi module declare no message
 * handles; MPI_Message_c2f and _f2c (SMPI's abort) still give C programs integer handles. */
#include <stdlib.h>
#include <string.h>

#include "layer.h"

#define ACTIVE() (icsim_runtime_get() != NULL)

struct icsim_message;
static void forget_handle(struct icsim_message *m);

struct icsim_message {
  MPI_Request req; /* the engine's receive of the message */
  MPI_Comm comm;
  char *bytes;
  int nbytes;
};

static void proc_null_status(MPI_Status *st)
{
  if (st == MPI_STATUS_IGNORE)
    return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  st->count = 0;
  st->cancelled = 0;
}

/* Calls that complete one operation leave the status' MPI_ERROR as the program set it. */
static void set_status(MPI_Status *status, const MPI_Status *st)
{
  if (status == MPI_STATUS_IGNORE)
    return;
  int error = status->MPI_ERROR;
  *status = *st;
  status->MPI_ERROR = error;
}

/* The message ST describes has just been probed on COMM: take it out of matching. */
static int claim(MPI_Comm comm, const MPI_Status *st, MPI_Message *msg)
{
  int n = 0;
  PMPI_Get_count(st, MPI_BYTE, &n);
  struct icsim_message *m = calloc(1, sizeof *m);
  if (!m)
    return MPI_ERR_NO_MEM;
  m->bytes = malloc(n > 0 ? (size_t)n : 1);
  if (!m->bytes) {
    free(m);
    return MPI_ERR_NO_MEM;
  }
  m->nbytes = n;
  m->comm = comm;
  int rc = icsim_engine_irecv_internal(m->bytes, n, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, comm, &m->req, 0);
  if (rc != MPI_SUCCESS) {
    free(m->bytes);
    free(m);
    return rc;
  }
  *msg = (MPI_Message)m;
  return MPI_SUCCESS;
}

/* Both matched probes: FLAG null for the blocking one. */
static int matched_probe(const char *call, int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                         MPI_Status *status)
{
  icsim_charge_call(call);
  int found = 1;
  if (src == MPI_PROC_NULL) {
    *msg = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
  } else {
    icsim_engine_poll();
    MPI_Status st;
    int rc = flag ? PMPI_Iprobe(icsim_inter_peer(comm, src), tag, comm, &found, &st)
                  : PMPI_Probe(icsim_inter_peer(comm, src), tag, comm, &st);
    if (rc == MPI_SUCCESS && found)
      rc = claim(comm, &st, msg); /* with the union rank, on an intercommunicator */
    if (rc != MPI_SUCCESS)
      return icsim_error(comm, call, rc);
    if (found) {
      st.MPI_SOURCE = icsim_inter_source(comm, st.MPI_SOURCE);
      set_status(status, &st);
    }
  }
  if (flag)
    *flag = found;
  return MPI_SUCCESS;
}

int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Mprobe(src, tag, comm, msg, status);
  return matched_probe("MPI_Mprobe", src, tag, comm, NULL, msg, status);
}

int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Improbe(src, tag, comm, flag, msg, status);
  return matched_probe("MPI_Improbe", src, tag, comm, flag, msg, status);
}

/* Wait for the message *MSG holds and unpack it into COUNT elements of TYPE at BUF; frees it. */
static int receive(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status, MPI_Comm *comm)
{
  struct icsim_message *m = (struct icsim_message *)*msg;
  MPI_Status st;
  int rc = icsim_engine_wait(&m->req, &st);
  *comm = m->comm;
  if (rc == MPI_SUCCESS) {
    int size = 0, pos = 0, n = m->nbytes;
    PMPI_Type_size(type, &size);
    if (size > 0 && n > 0) {
      int whole = n / size;
      if ((long long)n > (long long)count * size) { /* longer than the buffer: fill it, then say so */
        whole = count;
        st.MPI_ERROR = rc = MPI_ERR_TRUNCATE;
      }
      if (whole > 0)
        rc = PMPI_Unpack(m->bytes, n, &pos, buf, whole, type, m->comm) == MPI_SUCCESS ? rc : MPI_ERR_INTERN;
    } else if (n > 0) { /* a message into an empty type: every byte is too many */
      st.MPI_ERROR = rc = MPI_ERR_TRUNCATE;
    }
  }
  set_status(status, &st);
  forget_handle(m);
  free(m->bytes);
  free(m);
  *msg = MPI_MESSAGE_NULL;
  return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Mrecv(buf, count, type, msg, status);
  icsim_charge_call("MPI_Mrecv");
  if (*msg == MPI_MESSAGE_NO_PROC) {
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  MPI_Comm comm;
  int rc = receive(buf, count, type, msg, status, &comm);
  return icsim_error(comm, "MPI_Mrecv", rc);
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Request *req)
{
  if (!ACTIVE())
    return PMPI_Imrecv(buf, count, type, msg, req);
  icsim_charge_call("MPI_Imrecv");
  MPI_Status st;
  st.MPI_ERROR = MPI_SUCCESS;
  MPI_Comm comm = MPI_COMM_WORLD;
  int rc = MPI_SUCCESS;
  if (*msg == MPI_MESSAGE_NO_PROC)
    proc_null_status(&st);
  else
    rc = receive(buf, count, type, msg, &st, &comm);
  /* the error of a truncated message belongs to the completion call, in its status */
  int made = icsim_engine_completed(req, &st);
  return icsim_error(comm, "MPI_Imrecv", made != MPI_SUCCESS ? made : rc == MPI_ERR_TRUNCATE ? MPI_SUCCESS : rc);
}

/* Integer handles for messages (MPI_Message_c2f/f2c; SMPI's abort): 0 is the null message, any
 * other the message's place in this table, kept until it is received. */
static struct icsim_message **fhandles;
static int nfhandles;

static void forget_handle(struct icsim_message *m)
{
  for (int i = 0; i < nfhandles; i++)
    if (fhandles[i] == m)
      fhandles[i] = NULL;
}

MPI_Fint MPI_Message_c2f(MPI_Message msg)
{
  if (msg == MPI_MESSAGE_NULL)
    return 0;
  int free_slot = -1;
  for (int i = 0; i < nfhandles; i++) {
    if (fhandles[i] == (struct icsim_message *)msg)
      return i + 1;
    if (!fhandles[i] && free_slot < 0)
      free_slot = i;
  }
  if (free_slot < 0) {
    struct icsim_message **grown = realloc(fhandles, (size_t)(nfhandles + 1) * sizeof *grown);
    if (!grown)
      return 0;
    fhandles = grown;
    free_slot = nfhandles++;
  }
  fhandles[free_slot] = (struct icsim_message *)msg;
  return free_slot + 1;
}

MPI_Message MPI_Message_f2c(MPI_Fint handle)
{
  return handle > 0 && handle <= nfhandles ? (MPI_Message)fhandles[handle - 1] : MPI_MESSAGE_NULL;
}

MPI_Fint PMPI_Message_c2f(MPI_Message msg) { return MPI_Message_c2f(msg); }
MPI_Message PMPI_Message_f2c(MPI_Fint handle) { return MPI_Message_f2c(handle); }
