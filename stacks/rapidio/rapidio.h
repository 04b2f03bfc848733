/* RapidIO stack of the 1890VM6Ya SoC: controller, control level and MX/MPICH above.
 *
 * Follows A.S. Kuleshov, "MPI support in Linux OS for RapidIO-based multiprocessor computer
 * systems", Programmnye produkty i sistemy 2015 no. 4 (see ../../../shared/papers). Every
 * mechanism the paper names is here by name:
 *   controller.c    messages of up to 16 segments of <= 256 B, a delivery status per segment
 *                   (stop and wait), segment retries, the segment-placement hazard, NREAD/NWRITE
 *                   IO transactions, doorbells
 *   control_level.c the control mailbox (RIO_CONTROL_MAILBOX, mailbox 0) and the common queue
 *                   behind it; the control-level operations (enum rio_control_op), one handler
 *                   each, dispatched by rio_control(); the two paths built from them: small data
 *                   on mailbox 0 (rio_small_transfer: bounce buffer, type/size header, reassembly
 *                   over 4 KiB) and the dedicated-queue handshake (rio_dedicated_queue_handshake:
 *                   request on mailbox 0, reply with the mailbox number, data programmed by hand
 *                   4 KiB at a time from the physical address table, completion doorbell); 8
 *                   dedicated queues handed out per source node + mailbox, deferred when none is free
 *   mx.c            the software path (driver + MX + MPICH instructions at the node clock), the
 *                   256 B rounding and 4 KiB alignment rules that choose zero-copy or a bounce copy,
 *                   and the stack's entry in the icsim contract
 *   params.c        the one parameter table
 * Omitted: the virtual Ethernet user of the control level, link-level CRC errors, switch
 * arbitration inside the 1890KP3 beyond its latency. */
#ifndef ICSIM_RAPIDIO_H
#define ICSIM_RAPIDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack.h"

struct rio_params {
  /* controller and RapidIO logical layer */
  double segment_B;          /* largest segment payload */
  int segments_per_message;  /* 16 segments = 4 KiB message */
  double packet_header_B;    /* bytes a message segment adds on the link */
  double response_B;         /* delivery-status response packet */
  double turnaround_s;       /* receiver controller: segment in -> response out */
  double retry_delay_s;      /* sender waits this long before re-sending a rejected segment */
  int dedicated_queues;
  int mailboxes;             /* mailbox numbers of multi-segment messages (0 = control) */
  int letters;               /* concurrent letters per mailbox */
  int common_queue_slots;    /* 4 KiB buffers of the common (unexpected) inbound queue */
  double dma_bw_Bps;         /* controller <-> memory, shared by inbound and outbound */
  double io_payload_B;       /* NREAD/NWRITE payload */
  double io_header_bits;     /* 6 bytes + 6 bits */
  double doorbell_B;
  /* MX */
  double mx_rndv_threshold_B; /* MX's medium/large boundary: above it, rendezvous (RNDV, then the
                               * receiver pulls the data from the sender's registered pages) */
  /* control level */
  double large_threshold_B;  /* above: dedicated queue; at or below: common queue + bounce */
  double small_header_B;     /* type/size header of small data on mailbox 0 */
  bool round_to_segment;     /* send and receive sizes rounded up to 256 B (the paper's fix) */
  double zero_copy_align_B;  /* buffer alignment needed for dedicated-queue zero-copy */
  bool manual_programming;   /* each 4 KiB message programmed by hand (false: by hardware) */
  bool shared_core;          /* one core runs the sending and the receiving driver's work (false:
                              * the two directions' driver work overlaps, as on two cores) */
  double completion_latency_s; /* a finished 4 KiB message -> driver programs the next */
  /* software */
  double mx_instructions;        /* driver + MX + MPICH per small message, each side */
  double mx_large_instructions;  /* the same for a large (rendezvous) message */
  double control_instructions;   /* control level, per control message, each side */
  double program_instructions;   /* programming one 4 KiB message of a large transfer by hand
                                  * (descriptor from the physical address table) */
  double mailbox_message_instructions; /* per 4 KiB message of small data on mailbox 0, each side:
                                        * program it, take its interrupt, reassemble */
  double io_instructions;        /* CPU work per IO transaction (window load/store) */
  double copy_bw_Bps;            /* MX library's medium path per byte, each side (copy into / out of
                                  * its buffers) */
  double bounce_copy_bw_Bps;     /* the drivers' copies into and out of bounce buffers */
};

/* A transfer's timing as the model computes it, before it becomes SimGrid latency/bandwidth. */
struct rio_timing {
  double total_s;      /* from transfer start to last byte delivered, uncontended */
  double data_s;       /* of which data is moving: segments with their status round trips,
                        * programming gaps and retries; the rest (handshake, waiting for a queue
                        * or a buffer, the final doorbell) is latency */
  double segments, retries, messages, control_messages, doorbells, io_transactions;
  double pull_requests; /* MX large messages: the receiver's request for each piece after the first */
  int deferred;        /* 1 if it waited for a dedicated queue or mailbox */
  int queue;           /* large data: the dedicated queue granted at the receiver */
  size_t mailbox_index; /* large data: the (mailbox, letter) used, as an index in mailbox_free_at */
  double done_s;       /* large data: when the model predicts the queue and mailbox free again */
  /* where total_s goes, in the paper's terms (the transfer's phases, icsim_wire_add_phase) */
  double request_s, queue_wait_s, reply_s; /* dedicated queue: mailbox-0 request, wait, reply */
  double retry_s;      /* segments rejected and sent again (DMA overload, common queue full) */
  double doorbell_s;   /* dedicated queue: the completion doorbell */
  double rendezvous_s; /* MX large message: RNDV and PULL on mailbox 0, and the later pulls */
  double copy_s;       /* pulled pieces copied into bounce buffers */
};

/* A dedicated queue and mailbox held by a large transfer until SimGrid reports it complete. */
struct rio_hold {
  uint64_t id;
  int dst;
  int queue;
  size_t mailbox_index;
  double until; /* the predicted release, as written into the free-at tables */
};

/* Mailbox 0 is reserved for control information (the paper); the mailboxes handed to dedicated
 * queues are numbered after it. */
#define RIO_CONTROL_MAILBOX 0

/* The three paths a message takes, keyed by its size at two boundaries:
 *   MX's medium/large boundary (mx-rndv-threshold, 32 KiB in MX), and
 *   the control level's small/large boundary (large-threshold, set empirically in the paper).
 * RIO_PATH_MX_EAGER      MX medium message: the MX library copies it at both ends; the control
 *                        level sends it as small data on mailbox 0.
 * RIO_PATH_MX_PULL       MX large message below the control level's boundary: MX's rendezvous
 *                        (RNDV, PULL on mailbox 0), then the registered pages go as small data on
 *                        mailbox 0, copied 4 KiB at a time into bounce buffers by the sending driver
 *                        and out of the common queue by the receiving one.
 * RIO_PATH_DEDICATED     above the control level's boundary: the dedicated-queue handshake and
 *                        zero-copy 4 KiB messages programmed by hand. */
enum rio_path { RIO_PATH_MX_EAGER, RIO_PATH_MX_PULL, RIO_PATH_DEDICATED };
enum rio_path rio_path_of(const struct rio_params *p, double bytes);
const char *rio_path_name(enum rio_path path);

/* A node's control mailbox as a receiver: the common queue the driver opens at start-up, whose
 * 4 KiB buffers take small data and everything no dedicated queue accepts, and the CPU that
 * drains it one packet at a time (reassembly, header, copy out of the bounce buffer). */
struct rio_control_mailbox {
  double *slot_free_at; /* [slots]: when each common-queue buffer is free again */
  int slots;
  double cpu_free_at;   /* the CPU has taken every packet that arrived before this */
};

/* Per-node bookkeeping of the control level: its control mailbox, when each dedicated queue is
 * free again, and the large flows in progress (for DMA contention). */
enum { RIO_FLOW_IN, RIO_FLOW_OUT };

struct rio_node {
  struct rio_control_mailbox control;
  /* Pulled pieces: when the node's core has done the driver work queued on it (bounce copies into
   * and out of the bounce buffers, MX's rendezvous work). With rapidio/shared-core the node's one
   * core runs the sending and the receiving driver alike: one queue, [0]. Without it each
   * direction has its own, [RIO_FLOW_OUT] the sending and [RIO_FLOW_IN] the receiving driver's. */
  double driver_busy_until[2];
  double out_busy_until, in_busy_until; /* pulled and dedicated-queue data: link time queued on each lane */
  double *queue_free_at;        /* [dedicated_queues] */
  double io_free_at;            /* the CPU issues IO transactions one stream at a time */
  struct rio_flow {
    double start_s, end_s, rate_Bps;
    int out; /* RIO_FLOW_OUT: leaves this node (outbound lane), RIO_FLOW_IN: arrives */
  } *flows;
  int nflows, flows_cap;
};

struct rio_state {
  struct rio_params p;
  double clock_Hz;     /* node clock (platform) */
  double link_bw_Bps;  /* platform link */
  int nodes;
  struct rio_node *node;
  double *mailbox_free_at; /* [src][dst][mailbox 1..][letter] */
  /* counters */
  double small_msgs, pulled_msgs, large_msgs, segments, retries, rio_messages, bounce_copies, zero_copy, deferrals,
      control_messages, pull_requests, doorbells, io_transactions, hazards, queue_grants, queue_requests;
  double bytes_small, bytes_pulled, bytes_large, queue_releases, late_releases;
  int hazard_reported;
  struct rio_hold *holds;
  int nholds, holds_cap;
};

/* controller.c: pure timing of the logical layer */
double rio_round(const struct rio_params *p, double bytes);
/* Time one segment of B payload bytes holds the sender: out, status back (stop and wait). */
double rio_segment_s(const struct rio_params *p, double bytes, double link_bw, double route_lat_s);
/* Segments and time of moving BYTES as RapidIO messages of at most 16 segments. */
double rio_messages_s(const struct rio_params *p, double bytes, double link_bw, double route_lat_s, double *segments,
                      double *messages);
/* Bytes written past a buffer of BYTES when segments before the last were rejected and the
 * receiver places the last at 256 x index; 0 when rounding makes it safe. */
double rio_hazard_overflow(const struct rio_params *p, double bytes, bool rejected_before_last);
/* NWRITE (put) or NREAD (get) of BYTES as IO transactions. */
double rio_io_s(const struct rio_params *p, double bytes, bool read, double link_bw, double route_lat_s,
                double *transactions);
double rio_doorbell_s(const struct rio_params *p, double link_bw, double route_lat_s);

/* control_level.c */

/* The control-level operations, named after those the paper lists for the control level's
 * interface (request a dedicated queue for a registered buffer; send a registered buffer to a
 * mailbox; send small data to a node's common queue) and the control message of its handshake
 * that carries the mailbox number. The completion doorbell is the model's: the paper says only
 * that doorbells carry notifications. Numbered from 1 so that a zeroed message is no operation
 * and stops the dispatcher. */
enum rio_control_op {
  RIO_QUEUE_REQUEST = 1, /* sender -> receiver on mailbox 0: a dedicated queue for a registered
                          * buffer; the receiver picks a queue and a (mailbox, letter), deferring
                          * the request while none is free */
  RIO_QUEUE_REPLY,       /* receiver -> sender on mailbox 0: the mailbox number the queue was
                          * opened on */
  RIO_SEND_TO_MAILBOX,   /* the registered buffer into the dedicated queue, as 4 KiB messages to
                          * that mailbox (zero-copy) */
  RIO_COMPLETION,        /* doorbell: the transfer is complete, the receiver frees its queue and
                          * mailbox */
  RIO_SMALL_DATA,        /* small data with its type/size header to the receiver's common queue
                          * on mailbox 0, through bounce buffers */
};

/* One control-level operation between the nodes of one transfer. The handshake passes the same
 * message from operation to operation; each fills in what the next needs. */
struct rio_control_msg {
  enum rio_control_op op;
  int src, dst;       /* the data's sender and receiver (a reply travels from dst to src) */
  double now_s;       /* the transfer's start: lane loads finished by then are forgotten */
  double at_s;        /* when this operation starts */
  double bytes;       /* the small data, or the registered buffer (rounded) */
  double route_lat_s;
  /* filled by RIO_QUEUE_REQUEST */
  bool pulled;        /* RIO_SMALL_DATA of an MX rendezvous: per-piece bounce copies by the drivers */
  double granted_s;   /* when a queue and a (mailbox, letter) are free: > now_s if deferred */
  int queue;          /* the receiver's dedicated queue */
  size_t mailbox_index; /* the (mailbox, letter) reserved, as an index in mailbox_free_at */
  /* filled by RIO_QUEUE_REPLY: until then the sender knows only mailbox 0 */
  int mailbox, letter;
};

int rio_state_init(struct rio_state *s, int nodes, char *err, size_t errlen);
void rio_state_free(struct rio_state *s);
bool rio_is_large(const struct rio_params *p, double bytes);
/* Run one control-level operation: its effect on the control level's state, the counts it adds
 * to T (T is not cleared), and the seconds it takes from M->at_s, its transit, processing at
 * both ends and segment retries included. A deferred RIO_QUEUE_REQUEST's wait is not: it is in
 * M->granted_s. An unknown operation is a programming error and aborts. */
double rio_control(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t);
/* Small data: one RIO_SMALL_DATA on mailbox 0. */
void rio_small_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                        struct rio_timing *t);
/* MX rendezvous below the control level's boundary: RNDV and PULL on mailbox 0, then the data as
 * pulled small data. */
void rio_pull_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                       struct rio_timing *t);
/* Large data: RIO_QUEUE_REQUEST, RIO_QUEUE_REPLY, RIO_SEND_TO_MAILBOX, RIO_COMPLETION. */
void rio_dedicated_queue_handshake(struct rio_state *s, int src, int dst, double now, double bytes,
                                   double route_lat_s, struct rio_timing *t);
/* Software cost of a small message on either side: MX path, one programming/reassembly step per
 * 4 KiB RapidIO message, and the bounce copy (header included). */
double rio_small_cpu_s(const struct rio_state *s, double bytes);
/* Sender's software cost of a large message: MX path and programming its 4 KiB messages (all of
 * them by hand, or one descriptor when the hardware walks the address table). */
double rio_large_send_cpu_s(const struct rio_state *s, double bytes);

/* params.c */
#define RIO_NPARAMS 30
extern const struct icsim_param_desc rio_params_table[RIO_NPARAMS];
extern const size_t rio_params_table_len;

extern const struct icsim_stack_ops rapidio_stack;

#endif
