/* The transfer table: one id joins an MPI-side message and the transfer SimGrid makes of it.
 *
 * The MPI layer announces each message right before it hands it to SMPI (sender side; for a
 * one-sided get, the origin announces the transfer from the target). SimGrid's network model
 * sees only the two hosts and the size when the transfer starts, so the wire side takes the
 * oldest announcement with the same hosts and payload size: transfers between one pair of hosts
 * with the same size are alike for every model, and within a pair they start in announcement
 * order unless a receiver matches them out of order (then only their ids swap). SimGrid's
 * completion signal ends the record. Counted for --stats: announcements never started, transfers
 * nobody announced (while a rank is inside an SMPI call that sends its own synchronisation
 * messages, such a transfer is SMPI's: counted apart as internal), records still open at the end. */
#ifndef ICSIM_TRANSFER_H
#define ICSIM_TRANSFER_H

#include <stdint.h>
#include <stdio.h>

#include "stack.h"

/* SMPI hands the network model each message's payload plus this many envelope bytes; one-sided
 * transfers may come without it. */
#define ICSIM_SMPI_ENVELOPE_B 16

struct icsim_transfer_table;

struct icsim_transfer_table *icsim_transfers_new(void);
void icsim_transfers_free(struct icsim_transfer_table *t);

/* MPI side: record message M moving from host SRC to host DST; returns its id (>= 1). */
uint64_t icsim_transfers_announce(struct icsim_transfer_table *t, const struct icsim_msg *m, int src_host,
                                  int dst_host, double now);
/* Wire side: the transfer of PAYLOAD bytes from SRC to DST starts at NOW. Returns its record,
 * or NULL when nobody announced it (counted; INTERNAL says an SMPI call with its own messages
 * was under way, RANK_INTERNAL (may be NULL) which world ranks are inside one: see take()). */
const struct icsim_transfer *icsim_transfers_start(struct icsim_transfer_table *t, int src_host, int dst_host,
                                                   double payload, double now, int internal,
                                                   const int *rank_internal);
/* MPI side: message ID was cancelled before it started (MPI_Cancel took): it will never be a
 * transfer, so it no longer counts as announced. Returns 1 when ID was waiting. */
int icsim_transfers_withdraw(struct icsim_transfer_table *t, uint64_t id);
/* MPI side: message ID was cancelled but SMPI may still deliver it (a detached send left in the
 * mailbox): no longer counted as announced, yet a transfer may still take it (and count it). */
int icsim_transfers_cancel(struct icsim_transfer_table *t, uint64_t id);
/* The stacks' phases of transfer ID (just started) add up to S seconds; alone, it would take ALONE_S
 * (0: no layer said). */
void icsim_transfers_set_phases(struct icsim_transfer_table *t, uint64_t id, double s, double alone_s);
/* The receive transfer ID (just started) lands in: BUF in the receiver's address space. */
void icsim_transfers_set_recv_buf(struct icsim_transfer_table *t, uint64_t id, const void *buf);
/* SimGrid completed transfer ID; returns the record (valid until the next call) or NULL. */
const struct icsim_transfer *icsim_transfers_done(struct icsim_transfer_table *t, uint64_t id);

struct icsim_transfer_counts {
  double announced, started, done;
  double unannounced; /* wire transfers no MPI message announced, outside SMPI's internal calls */
  double internal;    /* wire transfers of SMPI's own synchronisation (window fences, communicator creation) */
  double pending;     /* announced, never started (at the time of asking) */
  double open;        /* started, not reported complete */
};
void icsim_transfers_counts(const struct icsim_transfer_table *t, struct icsim_transfer_counts *c);
/* ICSIM_DEBUG_TRANSFERS: the announcements no transfer took, a line each. */
void icsim_transfers_print_waiting(const struct icsim_transfer_table *t, FILE *out);

#endif
