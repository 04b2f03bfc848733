/* The timeline of a run (icsim run --trace, trace.c): per rank, nested states on simulated time,
 * written as they happen. */
#ifndef ICSIM_TRACE_H
#define ICSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum icsim_trace_format { ICSIM_TRACE_PAJE, ICSIM_TRACE_CHROME };

/* "paje" or "chrome": 0 and *OUT, else -1. */
int icsim_trace_format_parse(const char *s, enum icsim_trace_format *out);
struct icsim_trace *icsim_trace_open(const char *path, enum icsim_trace_format format, int nranks, char *err,
                                     size_t errlen);
/* Rank RANK enters state STATE (a name without quotes) at simulated TIME, inside the ones open. */
void icsim_trace_push(struct icsim_trace *t, int rank, double time, const char *state);
/* ... and leaves the innermost open one. */
void icsim_trace_pop(struct icsim_trace *t, int rank, double time);
/* Message ID's data leaves rank SRC for rank DST at TIME (its transfer starts), and arrives (the
 * transfer ends): an arrow between the ranks. */
void icsim_trace_message_start(struct icsim_trace *t, double time, uint64_t id, int src, int dst);
void icsim_trace_message_end(struct icsim_trace *t, double time, uint64_t id);
/* Its transfer's phases as the stacks priced them (Chrome: drawn on the sender's transfers track,
 * with the rest of the transfer's time as its flow). */
struct icsim_wire_phase;
void icsim_trace_message_phases(struct icsim_trace *t, uint64_t id, const struct icsim_wire_phase *ph, int n);
/* One more (DELTA 1) or one less (-1) transfer crosses link LINK (NAME) from TIME on: a variable
 * per link and node channel (Paje), a counter (Chrome). */
void icsim_trace_link_load(struct icsim_trace *t, double time, int link, const char *name, int delta);
/* Ends every open state and the ranks at END_TIME and closes the file: 0, or -1 on a write error. */
int icsim_trace_close(struct icsim_trace *t, double end_time);

#endif
