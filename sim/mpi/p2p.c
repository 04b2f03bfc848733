/* Point-to-point entry points of the MPI layer (one-sided ones: rma.c; communicators: comm.c).
 *
 * Send side: the call's CPU, the stack's send CPU (charged before the message is handed over: the
 * stack's work precedes the wire), then the announcement that joins the message to its transfer.
 * Receive side: receives are the progress engine's (engine.c), which charges them when they land.
 * Blocking calls are their non-blocking form followed by the engine's wait, so a rank blocked in a
 * send still takes the messages that land meanwhile. */
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

#define ACTIVE() (icsim_runtime_get() != NULL)

/* SMPI detaches a buffered send, and a standard or ready one below its threshold (the stack's
 * eager limit): such a send, once cancelled, may still be delivered (layer.c, sent[]). */
static int lingers(const char *name, int count, MPI_Datatype type)
{
  if (!strcmp(name, "Issend"))
    return 0;
  return !strcmp(name, "Ibsend") || icsim_type_bytes(count, type) < icsim_runtime_detach_threshold(icsim_runtime_get());
}

/* Every kind of send: the same charge, then SMPI's own call. */
#define ISEND_LIKE(NAME)                                                                                    \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,          \
                 MPI_Request *req)                                                                         \
  {                                                                                                        \
    uint64_t id = 0; /* read before SMPI's call, which lets the other ranks run and announce */          \
    if (ACTIVE()) {                                                                                        \
      dest = icsim_inter_peer(comm, dest);                                                                 \
      icsim_charge_call("MPI_" #NAME);                                                                    \
      icsim_charge_send(buf, count, type, dest, tag, comm);                                                \
      id = icsim_last_announced();                                                                         \
    }                                                                                                      \
    int rc = PMPI_##NAME(icsim_no_data(buf, count, type), count, type, dest, tag, comm, req);                    \
    if (rc == MPI_SUCCESS && ACTIVE())                                                                     \
      icsim_remember_send(*req, id, lingers(#NAME, count, type));                                          \
    return icsim_error(comm, "MPI_" #NAME, rc);                                                            \
  }
ISEND_LIKE(Isend)
ISEND_LIKE(Issend)
ISEND_LIKE(Irsend)
ISEND_LIKE(Ibsend)

/* Blocking sends: the non-blocking form, then the engine's wait. */
#define SEND_LIKE(NAME, INAME)                                                                              \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)          \
  {                                                                                                        \
    if (!ACTIVE())                                                                                         \
      return PMPI_##NAME(buf, count, type, dest, tag, comm);                                               \
    dest = icsim_inter_peer(comm, dest);                                                                   \
    icsim_charge_call("MPI_" #NAME);                                                                      \
    icsim_charge_send(buf, count, type, dest, tag, comm);                                                  \
    MPI_Request r;                                                                                         \
    int rc = PMPI_##INAME(icsim_no_data(buf, count, type), count, type, dest, tag, comm, &r);                    \
    return icsim_error(comm, "MPI_" #NAME, rc != MPI_SUCCESS ? rc : icsim_engine_wait(&r, MPI_STATUS_IGNORE)); \
  }
SEND_LIKE(Send, Isend)
SEND_LIKE(Ssend, Issend)
SEND_LIKE(Rsend, Irsend)
SEND_LIKE(Bsend, Ibsend)

/* Persistent sends: charged and announced at each MPI_Start (engine.c). */
#define SEND_INIT_LIKE(NAME, MODE)                                                                          \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,          \
                 MPI_Request *req)                                                                         \
  {                                                                                                        \
    if (ACTIVE() && dest == MPI_PROC_NULL)                                                                 \
      return icsim_psend_init_null(req);                                                                   \
    if (ACTIVE())                                                                                          \
      dest = icsim_inter_peer(comm, dest);                                                                 \
    int rc = PMPI_##NAME(icsim_no_data(buf, count, type), count, type, dest, tag, comm, req);                    \
    if (rc == MPI_SUCCESS && ACTIVE()) {                                                                   \
      icsim_charge_call("MPI_" #NAME);                                                                    \
      icsim_engine_track_psend(*req, MODE, buf, count, type, dest, tag, comm);                             \
    }                                                                                                      \
    return icsim_error(comm, "MPI_" #NAME, rc);                                                            \
  }
SEND_INIT_LIKE(Send_init, 'n')
SEND_INIT_LIKE(Ssend_init, 's')
SEND_INIT_LIKE(Rsend_init, 'r')
SEND_INIT_LIKE(Bsend_init, 'b')

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  if (!ACTIVE())
    return PMPI_Irecv(buf, count, type, src, tag, comm, req);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Irecv");
  return icsim_error(comm, "MPI_Irecv", icsim_engine_irecv(icsim_no_data(buf, count, type), count, type, src, tag, comm, req, 0));
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  if (!ACTIVE())
    return PMPI_Recv_init(buf, count, type, src, tag, comm, req);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Recv_init");
  return icsim_error(comm, "MPI_Recv_init", icsim_engine_irecv(icsim_no_data(buf, count, type), count, type, src, tag, comm, req, 1));
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Recv(buf, count, type, src, tag, comm, status);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Recv");
  MPI_Request r;
  int rc = icsim_engine_irecv_internal(icsim_no_data(buf, count, type), count, type, src, tag, comm, &r, 0);
  return icsim_error(comm, "MPI_Recv", rc != MPI_SUCCESS ? rc : icsim_engine_wait(&r, status));
}

int icsim_layer_isend(int synchronous, const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm,
                      MPI_Request *req)
{
  if (icsim_direct_ok() && icsim_direct_args_ok(buf, count, type))
    return icsim_smpi_isend(synchronous, buf, count, type, dst, tag, comm, req);
  return synchronous ? PMPI_Issend(buf, count, type, dst, tag, comm, req) : PMPI_Isend(buf, count, type, dst, tag, comm, req);
}

int icsim_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status, int layer_args)
{
  icsim_charge_call("MPI_Sendrecv");
  MPI_Request r[2];
  MPI_Status st[2];
  int rc = icsim_engine_irecv_internal(rbuf, rcount, rtype, src, rtag, comm, &r[0], layer_args);
  if (rc != MPI_SUCCESS)
    return rc;
  icsim_charge_send(sbuf, scount, stype, dest, stag, comm);
  rc = layer_args ? icsim_layer_isend(0, sbuf, scount, stype, dest, stag, comm, &r[1])
                  : PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &r[1]);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = icsim_engine_waitall(2, r, st);
  if (status != MPI_STATUS_IGNORE) { /* MPI_ERROR as the program set it unless the call fails */
    int kept = status->MPI_ERROR;
    *status = st[0];
    if (rc == MPI_SUCCESS)
      status->MPI_ERROR = kept;
  }
  return rc == MPI_ERR_IN_STATUS ? (st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR) : rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status);
  dest = icsim_inter_peer(comm, dest);
  src = icsim_inter_peer(comm, src);
  return icsim_error(comm, "MPI_Sendrecv",
                     icsim_sendrecv(icsim_no_data(sbuf, scount, stype), scount, stype, dest, stag, icsim_no_data(rbuf, rcount, rtype),
                                    rcount, rtype, src, rtag, comm, status, 0));
}

/* The outgoing data is packed first, so the receive may land in the same buffer. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
  dest = icsim_inter_peer(comm, dest);
  src = icsim_inter_peer(comm, src);
  int size = 0, pos = 0;
  PMPI_Pack_size(count, type, comm, &size);
  char *packed = malloc(size > 0 ? (size_t)size : 1);
  PMPI_Pack(buf, count, type, packed, size, &pos, comm);
  int rc = icsim_sendrecv(packed, pos, MPI_PACKED, dest, stag, buf, count, type, src, rtag, comm, status, 0);
  free(packed);
  return icsim_error(comm, "MPI_Sendrecv_replace", rc);
}

/* Probes move no data: the engine takes what has landed, then SMPI answers. */
int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (ACTIVE()) {
    icsim_charge_call("MPI_Probe");
    icsim_engine_poll();
    src = icsim_inter_peer(comm, src);
  }
  int rc = PMPI_Probe(src, tag, comm, status);
  if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE && ACTIVE()) /* a rank of the remote group */
    status->MPI_SOURCE = icsim_inter_source(comm, status->MPI_SOURCE);
  return icsim_error(comm, "MPI_Probe", rc);
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
  if (ACTIVE()) {
    icsim_charge_call("MPI_Iprobe");
    icsim_engine_poll();
    src = icsim_inter_peer(comm, src);
  }
  int rc = PMPI_Iprobe(src, tag, comm, flag, status);
  if (rc == MPI_SUCCESS && *flag && status != MPI_STATUS_IGNORE && ACTIVE())
    status->MPI_SOURCE = icsim_inter_source(comm, status->MPI_SOURCE);
  return icsim_error(comm, "MPI_Iprobe", rc);
}
