/* The MPICH 1.2 ADI2 device CM_MP: how one MPI message becomes SMPO messages (its three transfer
 * modes) and what each SMPO message costs the CPU on either side, split as the paper splits it:
 * the library's own work, the queue system (checksums, queue operations, copies), the driver. */
#include <math.h>

#include "smpo.h"

void smpo_plan(const struct smpo_params *p, double bytes, struct smpo_plan *out)
{
  if (bytes <= p->inline_threshold_B) { /* inlining: the body rides in the control message */
    out->mode = SMPO_MODE_INLINE;
    out->n = 1;
    out->leg[0] = (struct smpo_leg){SMPO_INLINE, 0, p->control_message_B + bytes};
  } else if (bytes <= p->eager_threshold_B) { /* eager: control message, then body, no reply */
    out->mode = SMPO_MODE_EAGER;
    out->n = 2;
    out->leg[0] = (struct smpo_leg){SMPO_CONTROL, 0, p->control_message_B};
    out->leg[1] = (struct smpo_leg){SMPO_DATA, 0, bytes};
  } else { /* rendezvous: the body leaves once the receiver has posted and said so */
    out->mode = SMPO_MODE_RENDEZVOUS;
    out->n = 3;
    out->leg[0] = (struct smpo_leg){SMPO_RTS, 0, p->control_message_B};
    out->leg[1] = (struct smpo_leg){SMPO_CTS, 1, p->control_message_B};
    out->leg[2] = (struct smpo_leg){SMPO_DATA, 0, bytes};
  }
}

/* Bytes checksummed for one SMPO message of B data bytes: the message checksum over the data,
 * and each packet's checksum over its header (all but the checksum field) and data. */
static double checksummed(const struct smpo_params *p, double b)
{
  return 2 * b + smpo_packets(p, b) * (smpo_header_bytes(p) - p->header_field_B);
}

void smpo_send_side(const struct smpo_params *p, double clock_Hz, double b, struct smpo_cpu *c)
{
  double np = smpo_packets(p, b);
  c->library_s = (p->library_send_message_instructions + np * p->library_send_packet_instructions) / clock_Hz;
  /* the data written into the (mmap-ed) driver buffer while packetising; without the mapping a
   * write() copies the packets once more into the driver */
  double copy = b / p->copy_bw_Bps + (p->mmap_driver_buffer ? 0 : smpo_wire_bytes(p, b) / p->copy_bw_Bps);
  c->queue_s = smpo_checksum_s(p, clock_Hz, checksummed(p, b)) + copy;
  c->driver_s = p->driver_call_s + np * p->driver_packet_instructions / clock_Hz;
}

void smpo_recv_side(const struct smpo_params *p, double clock_Hz, double b, struct smpo_cpu *c)
{
  double np = smpo_packets(p, b);
  /* the library reads the message the queue system hands up; each packet's header was read by the
   * queue system's add-packet, so the library has nothing to do per packet */
  c->library_s = p->library_receive_message_instructions / clock_Hz;
  /* add packet: each packet moved from the driver buffer into a free queue slot, its checksum
   * checked; receive: look-up, message checksum, copy out to the user, free */
  double add = np * p->queue_packet_instructions / clock_Hz + smpo_wire_bytes(p, b) / p->copy_bw_Bps;
  double receive = p->queue_message_instructions / clock_Hz + b / p->copy_bw_Bps;
  c->queue_s = add + receive + smpo_checksum_s(p, clock_Hz, checksummed(p, b));
  c->driver_s = p->driver_call_s + np * p->driver_packet_instructions / clock_Hz;
}

double smpo_cpu_total(const struct smpo_cpu *c) { return c->library_s + c->queue_s + c->driver_s; }

void smpo_message_cpu(const struct smpo_params *p, double clock_Hz, double bytes, int sender_side, struct smpo_cpu *c)
{
  struct smpo_plan plan;
  smpo_plan(p, bytes, &plan);
  *c = (struct smpo_cpu){0};
  for (int i = 0; i < plan.n; i++) {
    struct smpo_cpu one;
    int sends = plan.leg[i].back ? !sender_side : sender_side; /* the CTS goes the other way */
    if (sends)
      smpo_send_side(p, clock_Hz, plan.leg[i].bytes, &one);
    else
      smpo_recv_side(p, clock_Hz, plan.leg[i].bytes, &one);
    c->library_s += one.library_s;
    c->queue_s += one.queue_s;
    c->driver_s += one.driver_s;
  }
}
