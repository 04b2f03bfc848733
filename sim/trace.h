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
/* Its transfer's phases as the stacks priced them, and what its flow is when a layer named it
 * (FLOW_NAME, NULL: "flow"); drawn when it ends: Chrome on the sender's "transfers" track, Paje in
 * a "transfers" lane of the sender (one state per transfer, its pieces nested in it). */
struct icsim_wire_phase;
void icsim_trace_message_phases(struct icsim_trace *t, uint64_t id, const struct icsim_wire_phase *ph, int n,
                                const char *flow_layer, const char *flow_name);
/* A phase of it that only its end tells (part of its flow: the time it lost sharing its route),
 * drawn after the flow. Call before icsim_trace_message_end. */
void icsim_trace_message_late_phase(struct icsim_trace *t, uint64_t id, const char *layer, const char *name, double s);
/* One more (DELTA 1) or one less (-1) transfer crosses link LINK (NAME) from TIME on: a variable
 * per link and node channel (Paje), a counter (Chrome). */
void icsim_trace_link_load(struct icsim_trace *t, double time, int link, const char *name, int delta);
/* Link LINK is the simulator's UP and DOWN (the same pointer for a shared link), of nominal
 * bandwidth NOMINAL_BPS: from the first transfer crossing it, its utilisation is sampled. */
void icsim_trace_link_handles(struct icsim_trace *t, int link, const void *up, const void *down, double nominal_Bps);
/* The rates in use on the links transfers cross (USAGE_BPS of a link's handle) held from TIME until
 * the clock's next step: written where they changed, as the bandwidth in use over the nominal one
 * (Paje variables "utilisation", or "utilisation up" and "down"; Chrome counters "NAME
 * utilisation"). NAME_OF gives a link's name. */
void icsim_trace_sample_links(struct icsim_trace *t, double time, double (*usage_Bps)(const void *h),
                              const char *(*name_of)(int link));
/* Ends every open state and the ranks at END_TIME and closes the file: 0, or -1 on a write error. */
int icsim_trace_close(struct icsim_trace *t, double end_time);

#endif
