/* The validation engine behind `icsim validate` (validate/README.md).
 *
 * case.c       loads a case file and checks it against the case schema (descriptor rows)
 * published.c  reads the published tables
 * extract.c    turns a workload's output into (x, value) points
 * compare.c    compares simulated points with the published ones: statuses, aggregates, verdicts
 * report.c     summary.csv, report.md, plots and the terminal table
 * cmd.c        the command: options, listing cases, running their workloads */
#ifndef ICSIM_VALIDATE_H
#define ICSIM_VALIDATE_H

#include <stddef.h>
#include <stdio.h>

#include "params.h"
#include "yaml_flat.h"

/* ---- case.c ---- */

/* The case schema: key patterns ('#' = a list index), type and bounds, default (NULL =
 * required in every entry of its list, "" = optional without a value) and meaning. */
extern const struct icsim_param_desc validate_case_table[];
extern const size_t validate_case_table_len;

/* Load PATH into Y and check it against the schema. Returns 0, or -1 with
 * "file:line:column: problem; fix" in ERR. */
int validate_case_load(const char *path, struct icsim_yfile *y, char *err, size_t errlen);
/* The schema as the Markdown table of validate/README.md. */
void validate_case_keys_markdown(FILE *f);

/* Value of key FMT with one list index I ("metrics/%d/name"), or NULL when absent. */
const char *case_get(const struct icsim_yfile *y, const char *fmt, int i);
/* The entry at key FMT (index I), for its line and column, or NULL. */
const struct icsim_yentry *icsim_yaml_get_fmt(const struct icsim_yfile *y, const char *fmt, int i);
/* Item K of a list inside list entry I ("metrics/%d/breakdown/%d"), or NULL past its end. */
const char *case_item(const struct icsim_yfile *y, const char *fmt, int i, int k);
/* Number at key FMT (index I), or DEF when absent; the schema has checked it parses. */
double case_num(const struct icsim_yfile *y, const char *fmt, int i, double def);

/* One (x, value) point: published (value may be held back) or simulated. */
struct point {
  char x[64];
  double value;
  int has_value;
  char note[192]; /* simulated points: the run's breakdown fields, for the report */
};

/* ---- published.c ---- */

/* Published values of METRIC from a CSV "metric,x,published" ('#' lines are comments). */
int load_published(const char *path, const char *metric, struct point **out, size_t *n, char *err, size_t errlen);

/* ---- extract.c ---- */

/* Rows "x v1 v2 ...": the value of COLUMN (1-based) times SCALE per row; x is column 1, or
 * XFMT with {k} replaced by column k ("m={1},cf={2}"). Appended to *OUT. */
void extract_columns(const char *text, int column, const char *xfmt, double scale, struct point **out, size_t *n);
/* Value of a "  Name   =   value" line of TEXT, or NAN. */
double extract_field_value(const char *text, const char *name);
/* One point from a report block ("Name = value" lines): the value of metric entry MI's
 * `field` times SCALE at x X, its `breakdown` fields in the note. Returns 0 or -1 with ERR. */
int extract_field(const struct icsim_yfile *y, int mi, const char *text, const char *x, double scale,
                  struct point **out, size_t *n, char *err, size_t errlen);

/* ---- compare.c ---- */

/* One line of summary.csv. */
struct row {
  char case_name[64], metric[64], x[64];
  double published, simulated, rel_error, tolerance;
  int has_published, has_simulated;
  const char *status; /* pass fail blind excluded */
  char note[256];
  /* validate --uncertainty: the 90% interval of the simulated value and what moves it */
  int has_interval, outside; /* outside: the published value lies outside the interval */
  double p05, median, p95;
  char top[200];     /* top three parameters, ';' between; "fit residual" on a calibration point */
  char tornado[200]; /* its tornado plot, relative to the output folder, or "" */
};

struct rows {
  struct row *r;
  size_t n, cap;
};

/* Compare the simulated points SIM of the metric defined by entry MI of case Y (published
 * file, tolerance, calibration points, derive, exclusions); one row per published point. */
int compare_metric(const struct icsim_yfile *y, int mi, const char *case_name, const char *root,
                   const struct point *sim, size_t nsim, struct rows *rs, char *err, size_t errlen);
/* Aggregate A of case Y: the mean of other metrics' simulated values at one x, compared. */
int compare_aggregate(const struct icsim_yfile *y, int a, const char *case_name, const char *root, struct rows *rs,
                      char *err, size_t errlen);
/* Claim C of case Y: the ratio of two metrics' simulated values at one x against its bounds
 * (status pass or fail; the source published no number, so no published value). */
int compare_claim(const struct icsim_yfile *y, int c, const char *case_name, struct rows *rs, char *err,
                  size_t errlen);
/* One verdict line per case (Markdown list items when MARKDOWN); returns the cases not accepted. */
int print_verdicts(FILE *f, const struct rows *rs, const struct icsim_yfile *files, int nfiles, int markdown);

/* ---- uncertainty.c: validate --uncertainty ---- */

struct uq_opts;
/* Set by `validate --uncertainty`: summary.csv gains p05, median, p95, top_parameters; the report
 * and the verdicts show the intervals. */
extern int validate_uncertainty;
/* Run case Y's uncertainty study into OUTDIR/uncertainty/CASE and give the rows of the case in RS
 * their intervals (a calibration point's from the fit's residual). Returns 0, 1 when some points
 * are not done, -1 with ERR. */
int validate_case_uncertainty(const struct icsim_yfile *y, const char *root, const char *outdir,
                              const struct uq_opts *o, struct rows *rs, char *err, size_t errlen);

/* ---- report.c ---- */

struct plot {
  char file[128];
  char title[256];
  char unit[32];
  char metric[64];
  char case_name[64];
};

void plot_init(struct plot *p, const char *case_name, const char *metric, const char *unit);
/* Draw P with gnuplot into TMPDIR (skipped when x is not numeric). */
void make_plot(const struct plot *p, const struct rows *rs, const char *tmpdir);
/* split.c: where each run's time went (its --stats breakdown), kept per case (label: the run's
 * metric, arguments and ranks) and drawn as stacked bars per case into TMPDIR (split_file names
 * the picture). */
void split_add(const char *case_name, const char *label, const char *stats_json);
void split_plots(const char *tmpdir);
void split_file(const char *case_name, char *out, size_t len);
/* Write summary.csv and report.md into TMPDIR, then move them and the plots into OUTDIR. */
int write_outputs(const struct rows *rs, const struct plot *plots, int nplots, const struct icsim_yfile *files,
                  int nfiles, const char *tmpdir, const char *outdir, char *err, size_t errlen);
/* The terminal table, shape orders, verdicts and counts; returns the cases not accepted. */
int print_summary(const struct rows *rs, const struct icsim_yfile *files, int nfiles, const char *outdir);

#endif
