/* SMPO stack: VNIIEF's interprocessor exchange system under MPICH 1.2 (ADI2 device CM_MP).
 *
 * Follows A.M. Vargin, D.V. Ezhov, Yu.L. Kiryanov, "Implementation of the message passing
 * interface (MPI) for the domestic interprocessor exchange system (SMPO)", RFNC-VNIIEF 2004 (see
 * ../../../shared/papers/smpo-vargin2004.md). Every mechanism the paper names is here by name:
 *   packets.c   a message cut into packets no longer than the channel's hardware buffer; the
 *               header's message part (sender, receiver, message id, type, length, number of
 *               packets, message checksum) and packet part (sequence number, length, packet
 *               checksum), written out as real bytes; the routing header in front
 *   checksum.c  the checksums (CRC-32, computed for real over the packets' bytes) and their CPU
 *               cost; corruption injection (bit flips in the simulated packet, seeded)
 *   queue.c     the queue system of one process: the local pool of received packets (main
 *               queue), the auxiliary ready queue of message ids whose last packet has arrived,
 *               the ready-message counter; add packet (checksum verified), receive (ready-queue
 *               look-up, extract, message checksum verified, free), non-blocking poll
 *   library.c   the library's own steps as code (message analysis, packetisation, header, driver
 *               request), whose instruction counts measure-library.sh measures for params.c
 *   device.c    the MPICH 1.2 ADI2 device CM_MP: inlining, eager and rendezvous, and what each
 *               costs on the CPU (library, queue system, driver) and on the channel
 *   routing.c   the rank -> physical-module table, same-module detection (shared memory), the
 *               routing header and the transit hops between non-neighbouring modules
 *   smpo.c      the stack's entry in the icsim contract: send and receive paths, the in-flight
 *               messages joined to SimGrid's transfers, the abort on a checksum mismatch, counters
 *   params.c    the one parameter table
 * Omitted: the Perl launch-script generator (icsim run launches), the driver's internals beyond a
 * per-call and per-packet cost, link-level flow control of the SMPO hardware. */
#ifndef ICSIM_SMPO_H
#define ICSIM_SMPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack.h"

struct smpo_params {
  /* packets */
  double hardware_buffer_B;   /* the channel's hardware buffer: the longest packet, header included */
  double header_field_B;      /* width of one header field */
  /* the library's own work (the paper's 0.01%) */
  double library_send_message_instructions;    /* send: message analysis + driver request, per SMPO message */
  double library_send_packet_instructions;     /* send: packetisation + header, per packet */
  double library_receive_message_instructions; /* receive: message analysis + driver request, per SMPO message */
  double library_shm_message_instructions;     /* same module: message analysis, per message, each side */
  /* queue system */
  double queue_packet_instructions;    /* add one packet to the main queue (free slot, ready queue) */
  double queue_message_instructions;   /* ready-queue look-up, extract and free one message */
  double checksum_cycles_per_B;        /* CRC clocks per byte checked */
  double copy_bw_Bps;                  /* memory-to-memory copy rate of the module's CPU */
  bool mmap_driver_buffer;             /* packets built in the mmap-ed driver buffer (no extra copy) */
  /* driver and adapter */
  double driver_call_s;                /* one request to the driver (system call), per SMPO message, each side */
  double driver_packet_instructions;   /* the driver's work per packet, each side */
  double adapter_latency_s;            /* the adapter starting one SMPO message on the channel (PCI, DMA) */
  /* CM_MP transfer modes */
  double control_message_B;            /* ADI2 control message (envelope: tag, context, length, mode) */
  double inline_threshold_B;           /* body up to this is carried inside the control message */
  double eager_threshold_B;            /* above: rendezvous */
  /* shared memory between processes of one module */
  double semaphore_op_s;               /* one semaphore operation (system call) */
  /* corruption injection */
  double corrupt_packet_rate;          /* probability that a packet is damaged in transit */
  int corrupt_bits;                    /* bits flipped in a damaged packet */
  int corrupt_seed;
  /* where a run's communication pattern is written (empty: not recorded) */
  const char *record_pattern;
};

/* ---- packets.c -------------------------------------------------------------------------- */

/* Message types of the header. */
enum smpo_type {
  SMPO_DATA = 1,     /* the body of an eager or rendezvous message */
  SMPO_INLINE,       /* a control message carrying a small body (inlining) */
  SMPO_CONTROL,      /* control message of an eager message: the envelope ahead of its body */
  SMPO_RTS,          /* rendezvous: request to send */
  SMPO_CTS,          /* rendezvous: the receiver has posted the receive (clear to send) */
};

/* Header fields in wire order: routing header, message part, packet part (the packet checksum
 * last, as a trailer, so that packet + checksum is one CRC code word). */
enum smpo_field {
  SMPO_F_DST_MODULE, SMPO_F_TRANSIT, /* routing header */
  SMPO_F_SENDER, SMPO_F_RECEIVER, SMPO_F_MSG_ID, SMPO_F_TYPE, SMPO_F_LENGTH, SMPO_F_NPACKETS,
  SMPO_F_MSG_CHECKSUM,               /* message part */
  SMPO_F_SEQ, SMPO_F_PKT_LENGTH,     /* packet part (the checksum is the trailer) */
  SMPO_HEADER_FIELDS                 /* + the packet checksum = 12 fields */
};
#define SMPO_FIELDS (SMPO_HEADER_FIELDS + 1)

struct smpo_header {
  uint32_t dst_module, transit;
  uint32_t sender, receiver, msg_id, type, length, npackets, msg_checksum;
  uint32_t seq, pkt_length;
};

/* One SMPO message as it travels: its packets, written out back to back (header, data, packet
 * checksum), the model's own copy of the user's bytes. */
struct smpo_wire_msg {
  struct smpo_header h;  /* the message part (seq and pkt_length of packet 0) */
  uint8_t *bytes;        /* the packets, back to back */
  size_t nbytes;
  size_t *offset;        /* [npackets]: where each packet starts in BYTES */
};

/* Bytes of header on every packet (routing header + message part + packet part). */
double smpo_header_bytes(const struct smpo_params *p);
/* Data bytes one packet carries. */
double smpo_packet_data_bytes(const struct smpo_params *p);
/* Packets of a message of B data bytes (an empty message is one packet). */
double smpo_packets(const struct smpo_params *p, double b);
/* Bytes on the channel for B data bytes: data + a header per packet. */
double smpo_wire_bytes(const struct smpo_params *p, double b);
/* Cut DATA (LEN bytes; NULL: zeros) into packets under header H (its length, npackets and
 * message checksum are filled here). Returns 0 or -1 (the packet format cannot carry it). */
int smpo_packetise(const struct smpo_params *p, struct smpo_header h, const void *data, size_t len,
                   struct smpo_wire_msg *out);
void smpo_wire_msg_free(struct smpo_wire_msg *m);
/* Packet K of M: its bytes and length. */
uint8_t *smpo_packet(const struct smpo_wire_msg *m, uint32_t k, size_t *len);
/* Read a packet's header back from its bytes (field width from P). */
void smpo_header_read(const struct smpo_params *p, const uint8_t *pkt, struct smpo_header *h);

/* ---- checksum.c ------------------------------------------------------------------------- */

uint32_t smpo_crc32(uint32_t crc, const void *data, size_t len);
/* 1 when the packet's trailer matches the checksum recomputed over the rest of it. */
int smpo_packet_checksum_ok(const struct smpo_params *p, const uint8_t *pkt, size_t len, uint32_t *stored,
                            uint32_t *computed);
/* CPU seconds to checksum B bytes at CLOCK. */
double smpo_checksum_s(const struct smpo_params *p, double clock_Hz, double b);
/* Corruption injection: whether packet SEQ of message ID from SENDER is damaged (a hash of the
 * seed and the packet's identity: the same packets are damaged whatever the event order). */
int smpo_corrupt_decide(const struct smpo_params *p, uint32_t sender, uint32_t id, uint32_t seq);
/* Flip P->corrupt_bits distinct bits of PKT (LEN bytes), chosen from the same hash. */
void smpo_corrupt_flip(const struct smpo_params *p, uint32_t sender, uint32_t id, uint32_t seq, uint8_t *pkt,
                       size_t len);

/* ---- queue.c ---------------------------------------------------------------------------- */

/* A message in the main queue: its packets as they arrived (slots), complete or not. */
struct smpo_qmsg {
  uint32_t sender, msg_id, type, length, npackets, arrived;
  int tag;                 /* the MPI envelope's tag, for joining to the MPI receive (not a header field) */
  uint8_t **slot;          /* [npackets]: packet bytes (copied from the driver buffer) */
  size_t *slot_len;
  struct smpo_qmsg *next;
};

/* One process's queue system. */
struct smpo_queue {
  struct smpo_qmsg *pool;  /* main queue: every message with at least one packet in */
  struct smpo_ready {      /* auxiliary ready queue: ids of messages whose last packet is in */
    uint32_t sender, msg_id;
  } *ready;
  int nready, ready_cap;
  int ready_count;         /* the ready-message counter */
  int max_ready;           /* deepest the ready queue has been */
  double bytes, max_bytes; /* packet bytes held by the pool, and the peak */
  double packets_added, messages_received;
};

enum smpo_qerr { SMPO_OK = 0, SMPO_EPACKET = -1, SMPO_EMESSAGE = -2, SMPO_ENOTREADY = -3 };

/* Add one packet (LEN bytes, copied into a free slot). Its checksum is recomputed and compared
 * first: SMPO_EPACKET on a mismatch, nothing stored, *STORED and *COMPUTED say what differed. When
 * it is the last packet of its message, the message id goes to the ready queue. TAG is kept. */
int smpo_queue_add_packet(struct smpo_queue *q, const struct smpo_params *p, const uint8_t *pkt, size_t len, int tag,
                          uint32_t *stored, uint32_t *computed);
/* Ready-queue look-up: the oldest ready message from SENDER (any sender if < 0) with LENGTH data
 * bytes (any if < 0) and TAG (any if INT_MIN). NULL when none. */
const struct smpo_qmsg *smpo_queue_lookup(const struct smpo_queue *q, long sender, double length, int tag);
/* Non-blocking poll: 1 when such a message is ready. */
int smpo_queue_poll(const struct smpo_queue *q, long sender, double length, int tag);
/* Receive message ID from SENDER: extract its data into OUT (may be NULL), verify the whole
 * message's checksum, free it. SMPO_EMESSAGE on a mismatch (the message is freed all the same,
 * nothing is handed up), SMPO_ENOTREADY if it is not in the ready queue. */
int smpo_queue_receive(struct smpo_queue *q, const struct smpo_params *p, uint32_t sender, uint32_t msg_id, void *out,
                       uint32_t *stored, uint32_t *computed);
/* Messages still in the pool (complete or not). */
int smpo_queue_held(const struct smpo_queue *q);
void smpo_queue_free(struct smpo_queue *q);

/* ---- device.c --------------------------------------------------------------------------- */

enum smpo_mode { SMPO_MODE_INLINE, SMPO_MODE_EAGER, SMPO_MODE_RENDEZVOUS };

/* The SMPO messages one MPI message becomes under CM_MP, in order. */
struct smpo_plan {
  enum smpo_mode mode;
  int n;
  struct smpo_leg {
    enum smpo_type type;
    int back;     /* 1: receiver -> sender (CTS) */
    double bytes; /* data bytes of this SMPO message */
  } leg[3];
};

void smpo_plan(const struct smpo_params *p, double bytes, struct smpo_plan *out);

/* CPU seconds of one SMPO message of B data bytes on its sending / receiving side, split as the
 * paper splits the cost: the library's own share, the queue system (checksums, copies, queue
 * operations), the driver. */
struct smpo_cpu {
  double library_s, queue_s, driver_s;
};
void smpo_send_side(const struct smpo_params *p, double clock_Hz, double b, struct smpo_cpu *c);
void smpo_recv_side(const struct smpo_params *p, double clock_Hz, double b, struct smpo_cpu *c);
double smpo_cpu_total(const struct smpo_cpu *c);
/* Each side of a whole MPI message of BYTES under its plan (CTS included where it is sent/received). */
void smpo_message_cpu(const struct smpo_params *p, double clock_Hz, double bytes, int sender_side, struct smpo_cpu *c);

/* ---- routing.c -------------------------------------------------------------------------- */

struct icsim_platform;

/* Transit modules between every pair of modules, from the platform's routes. */
struct smpo_routes {
  int modules;
  int *transit; /* [src * modules + dst] */
};
int smpo_routes_init(struct smpo_routes *r, const struct icsim_platform *pf);
void smpo_routes_free(struct smpo_routes *r);
int smpo_transit_hops(const struct smpo_routes *r, int src_module, int dst_module);
/* Same module: exchange through semaphore-synchronised shared memory, never the adapter. */
static inline int smpo_same_module(int src_module, int dst_module) { return src_module == dst_module; }
/* The routing header of a packet to DST_MODULE (from the rank -> physical-module table). */
void smpo_routing_header(const struct smpo_routes *r, int src_module, int dst_module, struct smpo_header *h);
/* Hardware time of a stream of SMPO messages (DATA_B data bytes each, NMSG of them in a row)
 * over H transit modules at BW: route latency, the adapter's start per message, every packet's
 * bytes on the first link, and at each transit module the largest packet stored and forwarded. */
double smpo_transit_s(const struct smpo_params *p, const double *data_B, int nmsg, int transit, double bw_Bps);
double smpo_stream_s(const struct smpo_params *p, const double *data_B, int nmsg, int transit, double route_lat_s,
                     double bw_Bps);

/* ---- smpo.c ----------------------------------------------------------------------------- */

/* A message between the send path and the queue system: built by send_cpu, joined to its
 * SimGrid transfer by wire, delivered packet by packet into the receiver's queue when the
 * transfer completes. */
struct smpo_flight {
  uint64_t id;              /* transfer id, 0 until wire joins it */
  int src_rank, dst_rank, tag;
  enum icsim_msg_kind kind;
  size_t bytes;
  struct smpo_wire_msg msg; /* the body (or inline) message, with its real bytes */
  struct smpo_flight *next;
};

struct smpo_pair { double messages, bytes; };

struct smpo_state {
  struct smpo_params p;
  double clock_Hz;
  struct smpo_routes routes;
  int nranks;                  /* grown as ranks appear */
  struct smpo_queue *queue;    /* [nranks]: each process's queue system */
  uint32_t *next_id;           /* [nranks]: message ids per sender */
  struct smpo_flight *flights, *flights_tail;
  struct smpo_pair *pattern;   /* [nranks * nranks], when recording */
  int pattern_ranks;
  /* counters */
  double smpo_messages, packets, header_bytes, packet_checksums, message_checksums, shm_messages, transit_hops,
      packet_transit_hops, inline_msgs, eager_msgs, rendezvous_msgs, copies_avoided, corrupted_packets,
      detected_corruptions, delivered_corrupted, late_insertions, unqueued_receives;
  /* hardware_s: the transfers' simulated durations (contention included); hardware_uncontended_s:
   * the wire model's time of each alone */
  double library_s, queue_s, driver_s, hardware_s, hardware_uncontended_s, shm_s;
};

/* The receive path's abort on a checksum mismatch: prints the library's diagnostic (rank,
 * message id, packet) and ends the program, as the library does. Replaceable for unit tests. */
extern void (*smpo_abort)(const char *diagnostic);

int smpo_state_init(struct smpo_state *s, const struct smpo_params *p, double clock_Hz);
void smpo_state_free(struct smpo_state *s);

/* params.c */
#define SMPO_NPARAMS 22
extern const struct icsim_param_desc smpo_params_table[SMPO_NPARAMS];
extern const size_t smpo_params_table_len;
extern const struct icsim_param_rule smpo_params_rules[2]; /* range rules (params.h) */

extern const struct icsim_stack_ops smpo_stack;

#endif
