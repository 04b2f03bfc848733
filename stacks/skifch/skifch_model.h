/* The skifch stack: SkifCh channels on the SKIF-Aurora 3D torus (papers/skifch-2011.md), and MPI
 * over SkifCh.
 *
 * Two sides share this header. The model (model.c, in icsim_core) charges the host CPU of each
 * message and its time on the torus; the program side (program/channel.c, linked into programs by
 * icsimcc) implements the SkifCh API itself: channels, receive rings, credits, prefix sends.
 * Pure parts both use (the ring of pages, the credit account, the sender's size decision, MPI's
 * match queues) are plain C here so that they are unit tested without SimGrid. */
#ifndef ICSIM_SKIFCH_MODEL_H
#define ICSIM_SKIFCH_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "stack.h"

/* A SkifCh message travels as a message whose tag is this value: MPI tags are never negative, so
 * the model tells channel traffic from MPI's without a field of its own. */
#define SKIFCH_WIRE_TAG (-0x5C1F)

struct skifch_params {
  double send_overhead_s;      /* CPU: hand one message's descriptor to the adapter */
  double recv_overhead_s;      /* CPU: find one message in the ring and return it */
  double max_message_B;        /* largest message the adapter sends at once */
  double header_B;             /* torus packet header per message */
  double recv_buffer_B;        /* each channel's receive ring */
  double page_B;               /* the ring's separately mapped pages */
  double refusal_s;            /* CPU of a Send the adapter refuses */
  int tx_slots;                /* messages one adapter keeps in flight */
  double credit_latency_s;     /* freed ring space reaches the senders' adapters after this */
  double stall_timeout_s;      /* refusals by a ring held only by un-completed messages: stop */
  double mpi_eager_B;          /* MPI over SkifCh: larger messages wait for the receiver */
  bool mpi_matching;           /* MPI over SkifCh pays matching on every message */
  double match_base_s;         /* MPI: fixed part of one match (queue lock, envelope compare set-up) */
  double match_entry_s;        /* MPI: per queue entry examined */
};

#define SKIFCH_NPARAMS 14
extern const struct icsim_param_desc skifch_params_table[SKIFCH_NPARAMS];
extern const struct icsim_param_rule skifch_params_rules[2]; /* range rules (params.h) */

/* ---- MPI's match queue, as MPI over SkifCh keeps it (matching.c) ---------------------------- */
/* Messages sent to one rank and not yet taken, in arrival order; taking one examines the entries
 * before it. */
struct skifch_match_entry {
  int src, tag;
};
struct skifch_match_queue {
  struct skifch_match_entry *e;
  size_t n, cap;
};
void skifch_match_push(struct skifch_match_queue *q, int src, int tag);
/* Remove the first entry from SRC with TAG; returns the entries examined (its 1-based position),
 * or the queue length when none matches (a full search that finds nothing). */
size_t skifch_match_take(struct skifch_match_queue *q, int src, int tag);

/* ---- the receive ring (ring.c) -------------------------------------------------------------- */
#define SKIFCH_MAX_PIECES 3
struct skifch_piece {
  size_t page, offset, len; /* page index, offset in it, bytes */
};
struct skifch_ring {
  size_t size, page;   /* bytes, page bytes (size is a whole number of pages) */
  size_t head, used;   /* oldest byte still held, bytes held */
};
/* Pieces of LEN bytes written at the ring's tail (caller checks the space): returns the count. */
int skifch_ring_place(struct skifch_ring *r, size_t len, struct skifch_piece out[SKIFCH_MAX_PIECES]);
/* Free the oldest LEN bytes. */
void skifch_ring_release(struct skifch_ring *r, size_t len);

/* ---- the sender's credits for one receiving channel (credit.c) ------------------------------ */
struct skifch_credit_return {
  double at;
  size_t bytes;
};
struct skifch_credits {
  size_t limit, committed; /* ring bytes; bytes sent and not yet seen freed */
  struct skifch_credit_return *ret;
  size_t nret, capret, first;
};
void skifch_credits_init(struct skifch_credits *c, size_t limit);
/* Bytes the sender may still send at NOW (returns reaching it by then are counted). */
size_t skifch_credits_available(struct skifch_credits *c, double now);
void skifch_credits_take(struct skifch_credits *c, size_t bytes);
/* The receiver freed BYTES at NOW; the sender sees them at NOW + LATENCY. */
void skifch_credits_return(struct skifch_credits *c, size_t bytes, double now, double latency);
void skifch_credits_free(struct skifch_credits *c);

/* The size of the message one Send makes: the whole iovec, cut to the adapter's largest message
 * and to the receiver's credits; 0 (refused) when either credits or adapter slots are exhausted. */
size_t skifch_send_size(size_t wanted, size_t max_message, size_t credits, int free_slots);

/* ---- the model's state (model.c) ------------------------------------------------------------ */
struct skifch_state {
  struct skifch_params p;
  int nranks_cap;
  struct skifch_match_queue *unexpected; /* per receiving rank (MPI over SkifCh) */
  double channel_msgs, mpi_msgs, mpi_pieces, match_entries, match_s, wire_bytes, refusals, prefixes;
  double pushed_msgs; /* eager messages that reached the receiver before it posted the receive */
};
/* The skifch state of the running platform, NULL when its network layer is not skifch. */
struct skifch_state *skifch_state_of(void *runtime);
/* Pieces an MPI message of BYTES is cut into (at least one). */
double skifch_pieces(const struct skifch_params *p, double bytes);

#endif
