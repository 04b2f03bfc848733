/* `--stats` as JSON, written and read in one place with jansson: every string escaped (a platform
 * name or a --set value holding quotes or backslashes stays valid JSON), every number kept to 17
 * significant digits.
 *
 * The file: {"platform", "layers", "stack", "sets": {key: value as given}, "simulated_time_s",
 * "mpi": {NAME: {"value", "unit"}}, "compute": {...}, one section per layer with its counters}. */
#ifndef ICSIM_STATS_JSON_H
#define ICSIM_STATS_JSON_H

#include <stddef.h>

struct icsim_runtime;

/* The statistics of RT at SIMULATED_S as JSON text (malloc'ed), or NULL when out of memory. */
char *icsim_stats_json(struct icsim_runtime *rt, double simulated_s);

/* A figure of a --stats text: "simulated_time_s" (a top-level number) or "SECTION/NAME" (the
 * "value" of counter NAME in SECTION, e.g. "mpi/unmatched_transfers", or a stack's),
 * or a counter's bare NAME (the first section that has one). NAN when the text is not JSON or holds
 * no such figure. */
double icsim_stats_get(const char *json_text, const char *what);

/* Every counter of a --stats text, one "SECTION/NAME = VALUE" line each (malloc'ed; "" when none). */
char *icsim_stats_lines(const char *json_text);

/* A string of a --stats text: "platform", "stack", or "sets/KEY" (a --set value as given).
 * Malloc'ed, or NULL when absent. */
char *icsim_stats_string(const char *json_text, const char *what);

#endif
