/* libFuzzer target: the input loaders on arbitrary bytes, under ASan and UBSan.
 *
 * Each input is written to a memory file and read, by path, by every loader of input files:
 * the platform loader (icsim_platform_load, with the routes and a placement of what loads), the
 * validation case loader (validate_case_load), the sweep file loader (sweep_load, sweep_points),
 * the placement file reader (`--place FILE`, icsim_placement_file_read, against a fixed platform),
 * the communication pattern reader (`icsim place --pattern-file`, smpo_pattern_read) and the
 * published tables' reader (validate/data/NAME.csv, load_published), and icsim calibrate's measurement
 * sets and benchmark tables (cal_set_load, cal_table_read). A first line `# --set KEY=VALUE` or
 * `# --place SPEC` (a YAML comment, so the rest still parses) also feeds that command-line value
 * in, so the fuzzer reaches the --set and --place parsers too.
 *
 * A new loader is added in load_everything() below, one call (README.md in this folder). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "calibrate.h"
#include "mapping.h"
#include "placement_file.h"
#include "platform.h"
#include "sweep.h"
#include "validate.h"

static char path[64];
static int fd = -1;

/* Routes and a placement of a platform that loaded: indexes in range, lengths within the bound. */
static void exercise(const struct icsim_platform *pf, const char *place)
{
  int hosts = icsim_platform_hosts(pf), cap = icsim_route_max_hops(pf);
  struct icsim_hop *hops = malloc((size_t)cap * sizeof *hops);
  int pick[] = {0, hosts / 2, hosts - 1};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int n = icsim_route(pf, pick[i], pick[j], hops, cap);
      if (n < 1)
        abort(); /* every pair of hosts has a route of at least one link */
      for (int k = 0; k < n; k++)
        if (hops[k].link < 0 || hops[k].link >= pf->nlinks)
          abort();
    }
  free(hops);
  int ranks[4];
  char err[1024];
  for (int n = 1; n <= 4; n++)
    icsim_place(pf, n, place ? place : "block", ranks, err, sizeof err);
}

static void load_everything(const char *set, const char *place)
{
  char err[4096];
  struct icsim_platform pf;
  char *sets[1] = {(char *)set};
  if (icsim_platform_load(&pf, path, sets, set ? 1 : 0, err, sizeof err) == 0) {
    exercise(&pf, place);
    icsim_platform_free(&pf);
  }
  struct icsim_yfile y;
  if (validate_case_load(path, &y, err, sizeof err) == 0)
    icsim_yaml_free(&y);
  struct sweep sw;
  if (sweep_load(path, &sw, err, sizeof err) == 0) {
    struct sweep_point *pts;
    int n = sweep_points(&sw, &pts, err, sizeof err);
    if (n > 0)
      sweep_points_free(pts, n);
    sweep_free(&sw);
  }
  /* a placement file, on a platform of 16 two-socket modules loaded once */
  static struct icsim_platform fixed;
  static int have_fixed = -1;
  if (have_fixed < 0)
    have_fixed = icsim_platform_load(&fixed, ICSIM_SRCDIR "/platforms/vniief-smpo.yaml", NULL, 0, err, sizeof err) == 0;
  if (!have_fixed)
    abort(); /* the seed platform must load */
  int ns[] = {1, 4, 40};
  for (int i = 0; i < 3; i++) {
    char *list = NULL;
    if (icsim_placement_file_read(path, &fixed, ns[i], &list, err, sizeof err) == 0) {
      int hosts[40];
      if (icsim_place(&fixed, ns[i], list, hosts, err, sizeof err) == 0)
        for (int r = 0; r < ns[i]; r++)
          if (hosts[r] < 0 || hosts[r] >= icsim_platform_hosts(&fixed))
            abort(); /* every rank on a host of the platform */
    }
    free(list);
  }
  /* a recorded communication pattern (smpo/record-pattern, icsim place --pattern-file) */
  struct smpo_pattern pat;
  if (smpo_pattern_read(path, &pat, err, sizeof err) == 0)
    smpo_pattern_free(&pat);
  /* a published table (validate/data/NAME.csv): every metric named in it is read the same way */
  struct point *pts = NULL;
  size_t npts = 0;
  if (load_published(path, "osu_latency_us", &pts, &npts, err, sizeof err) == 0)
    free(pts);
  /* icsim calibrate's inputs: a benchmark's output table (OSU or NetPIPE, found by its header, and
   * OSU read at another value column), and a measurement set with the tables it names beside it */
  struct cal_table t;
  if (cal_table_read(path, NULL, CAL_FORMAT_DETECT, 0, &t, err, sizeof err) == 0)
    cal_table_free(&t);
  if (cal_table_read(path, NULL, CAL_FORMAT_OSU, 3, &t, err, sizeof err) == 0)
    cal_table_free(&t);
  struct cal_set cs = {0};
  if (cal_set_load(&cs, path, false, err, sizeof err) == 0)
    cal_set_finish(&cs, err, sizeof err);
  cal_set_free(&cs);
  /* further loaders go here */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (fd < 0) {
    fd = memfd_create("icsim-fuzz", 0);
    if (fd < 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
    abort();
  /* the command-line value of a first line "# --set ..." or "# --place ..." */
  char arg[256] = "", *set = NULL, *place = NULL;
  size_t line = 0;
  while (line < size && line < sizeof arg - 1 && data[line] != '\n')
    line++;
  if (line > 8 && !memcmp(data, "# --set ", 8)) {
    memcpy(arg, data + 8, line - 8);
    arg[line - 8] = '\0';
    set = arg;
  } else if (line > 10 && !memcmp(data, "# --place ", 10)) {
    memcpy(arg, data + 10, line - 10);
    arg[line - 10] = '\0';
    place = arg;
  }
  if ((set && strlen(set) != line - 8) || (place && strlen(place) != line - 10))
    return 0; /* a NUL inside: no command line can hold it */
  load_everything(set, place);
  return 0;
}
