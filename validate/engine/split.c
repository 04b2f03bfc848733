/* Where each validation run's time went: its --stats breakdown (program, compute, blocked, each
 * layer's CPU by kind, polls; summed over the ranks), kept per run and drawn per case as one
 * stacked bar per run, in percent of the ranks' time (gnuplot: CASE-breakdown.png, shown in the
 * report above the case's tables). A run gives every point of its table, so the bar is the run's,
 * not one point's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats_json.h"
#include "validate.h"

#define MAX_ENTRIES 24

struct split {
  char case_name[64], label[96];
  int n;
  char name[MAX_ENTRIES][48];
  double s[MAX_ENTRIES];
};
static struct split *splits;
static int nsplits;

void split_add(const char *case_name, const char *label, const char *stats_json)
{
  char *lines = stats_json ? icsim_stats_lines(stats_json) : NULL;
  if (!lines)
    return;
  struct split sp = {0};
  snprintf(sp.case_name, sizeof sp.case_name, "%s", case_name);
  snprintf(sp.label, sizeof sp.label, "%s", label);
  for (char *l = lines; l && *l && sp.n < MAX_ENTRIES;) { /* "breakdown/NAME = value" */
    char *nl = strchr(l, '\n');
    if (nl)
      *nl = '\0';
    char name[64];
    double v;
    if (sscanf(l, "breakdown/%63s = %lf", name, &v) == 2 && v > 0) {
      size_t len = strlen(name);
      if (len > 2 && !strcmp(name + len - 2, "_s")) /* the key's unit suffix */
        name[len - 2] = '\0';
      snprintf(sp.name[sp.n], sizeof sp.name[0], "%s", name);
      sp.s[sp.n++] = v;
    }
    l = nl ? nl + 1 : NULL;
  }
  free(lines);
  if (!sp.n)
    return;
  splits = realloc(splits, (size_t)(nsplits + 1) * sizeof *splits);
  splits[nsplits++] = sp;
}

void split_file(const char *case_name, char *out, size_t len) { snprintf(out, len, "%s-breakdown.png", case_name); }

void split_plots(const char *tmpdir)
{
  for (int i = 0; i < nsplits; i++) {
    if (i > 0 && !strcmp(splits[i].case_name, splits[i - 1].case_name))
      continue; /* one plot per case, from its first run on */
    const char *cname = splits[i].case_name;
    /* the entries any run of the case has, in first-seen order */
    char names[64][48];
    int nn = 0, nruns = 0;
    for (int j = i; j < nsplits && !strcmp(splits[j].case_name, cname); j++, nruns++)
      for (int k = 0; k < splits[j].n; k++) {
        int seen = 0;
        for (int m = 0; m < nn && !seen; m++)
          seen = !strcmp(names[m], splits[j].name[k]);
        if (!seen && nn < 64)
          snprintf(names[nn++], sizeof names[0], "%s", splits[j].name[k]);
      }
    char dat[4096], gp[4096], png[1024];
    snprintf(dat, sizeof dat, "%s/%s-breakdown.dat", tmpdir, cname);
    snprintf(gp, sizeof gp, "%s/%s-breakdown.gp", tmpdir, cname);
    char file[256];
    split_file(cname, file, sizeof file);
    snprintf(png, sizeof png, "%s/%s", tmpdir, file);
    FILE *d = fopen(dat, "w"), *g = d ? fopen(gp, "w") : NULL;
    if (!g) {
      if (d)
        fclose(d);
      continue;
    }
    fprintf(d, "run");
    for (int m = 0; m < nn; m++)
      fprintf(d, "\t%s", names[m]);
    fprintf(d, "\n");
    for (int j = i; j < i + nruns; j++) {
      double total = 0;
      for (int k = 0; k < splits[j].n; k++)
        total += splits[j].s[k];
      fprintf(d, "\"%s\"", splits[j].label);
      for (int m = 0; m < nn; m++) {
        double v = 0;
        for (int k = 0; k < splits[j].n; k++)
          if (!strcmp(splits[j].name[k], names[m]))
            v = splits[j].s[k];
        fprintf(d, "\t%.6g", total > 0 ? 100 * v / total : 0);
      }
      fprintf(d, "\n");
    }
    fclose(d);
    fprintf(g,
            "set terminal pngcairo size %d,%d noenhanced\nset output '%s'\nset title '%s: where each run''s time "
            "went (all ranks)'\nset ylabel '%% of the ranks'' time'\nset yrange [0:100]\nset style data histograms\n"
            "set style histogram rowstacked\nset style fill solid 0.85 border -1\nset boxwidth 0.7\n"
            "set key outside right\nset xtics rotate by -40 font ',8'\nset bmargin 12\nset key autotitle columnhead\n",
            nruns > 20 ? 900 + 30 * (nruns - 20) : 900, 520 + 12 * nn, png, cname);
    fprintf(g, "plot for [c=2:%d] '%s' using c:xtic(1)\n", nn + 1, dat);
    fclose(g);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' >/dev/null 2>&1", gp);
    if (system(cmd) != 0)
      unlink(png); /* gnuplot missing or failed: the report shows no picture */
    unlink(dat);
    unlink(gp);
  }
}
