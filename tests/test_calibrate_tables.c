/* The output tables icsim calibrate reads (sim/calibrate_measure.c): OSU 5.x and 7.x layouts,
 * osu_mbw_mr's two value columns, NetPIPE's np.out and its printout, and the lines refused. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"

static char path[64];

static int read_text(const char *text, enum cal_format f, int column, struct cal_table *t, char *err, size_t errlen)
{
  snprintf(path, sizeof path, "/tmp/icsim-cal-table-XXXXXX");
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  int rc = cal_table_read(path, NULL, f, column, t, err, errlen);
  unlink(path);
  return rc;
}

Test(tables, osu5_latency)
{
  struct cal_table t;
  char err[512];
  cr_assert_eq(read_text("# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n0                       0.23\n"
                         "1                       0.24\n4194304              1337.50\n",
                         CAL_FORMAT_DETECT, 0, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.q, CAL_LATENCY_US);
  cr_assert_eq(t.n, 3);
  cr_expect_eq(t.rows[1].size, 1);
  cr_expect_float_eq(t.rows[2].value, 1337.5, 1e-9);
  cr_expect_float_eq(t.rows[2].half_step, 0.005, 1e-12);
  cr_expect_eq(t.rows[2].line, 5);
  cal_table_free(&t);
}

Test(tables, osu7_latency_full_columns)
{
  struct cal_table t;
  char err[512];
  const char *text = "\n# OSU MPI Latency Test v7.3\n# Datatype: MPI_CHAR.\n"
                     "# Size       Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations\n"
                     "1                       1.50                1.40                1.70       10000\n"
                     "2                       1.52                1.41                1.80       10000\n";
  cr_assert_eq(read_text(text, CAL_FORMAT_DETECT, 0, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.q, CAL_LATENCY_US);
  cr_expect_float_eq(t.rows[1].value, 1.52, 1e-9);
  cal_table_free(&t);
  cr_assert_eq(read_text(text, CAL_FORMAT_DETECT, 4, &t, err, sizeof err), 0, "%s", err); /* the max column */
  cr_expect_float_eq(t.rows[1].value, 1.80, 1e-9);
  cal_table_free(&t);
}

Test(tables, osu_mbw_mr_and_bibw)
{
  struct cal_table t;
  char err[512];
  cr_assert_eq(read_text("# OSU MPI Multiple Bandwidth / Message Rate Test v5.9\n# [ pairs: 2 ] [ window size: 64 ]\n"
                         "# Size                  MB/s        Messages/s\n1                       3.21        3214563.01\n",
                         CAL_FORMAT_DETECT, 0, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.q, CAL_BANDWIDTH_MBPS);
  cr_expect_float_eq(t.rows[0].value, 3.21, 1e-9);
  cal_table_free(&t);
  cr_assert_eq(read_text("# OSU MPI Bi-Directional Bandwidth Test v7.0\n# Size      Bandwidth (MB/s)\n1    0.00\n",
                         CAL_FORMAT_DETECT, 0, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.q, CAL_BANDWIDTH_MBPS);
  cr_expect_eq(t.rows[0].value, 0); /* a printed zero: below half a step */
  cr_expect_float_eq(t.rows[0].half_step, 0.005, 1e-12);
  cal_table_free(&t);
}

Test(tables, netpipe_np_out_and_printout)
{
  struct cal_table t;
  char err[512];
  cr_assert_eq(read_text("       1 0.499560   0.00001527\n       2 0.998469   0.00001528\n", CAL_FORMAT_DETECT, 0, &t,
                         err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.format, CAL_FORMAT_NETPIPE);
  cr_expect_eq(t.q, CAL_LATENCY_US);
  cr_expect_float_eq(t.rows[0].value, 15.27, 1e-9); /* one-way seconds -> us */
  cal_table_free(&t);
  /* the simulated NetPIPE's printout: its banner lines are no rows */
  cr_assert_eq(cal_table_read("NPmpich2", "Using no perturbations\n\n0: vm\n"
                              "  5:       8 bytes     20 times -->      2.82 Mbps in      21.67 usec\n",
                              CAL_FORMAT_NETPIPE, 0, &t, err, sizeof err), 0, "%s", err);
  cr_assert_eq(t.n, 1);
  cr_expect_eq(t.rows[0].size, 8);
  cr_expect_float_eq(t.rows[0].value, 21.67, 1e-9);
  cal_table_free(&t);
}

Test(tables, refused_lines_named)
{
  struct cal_table t;
  char err[512];
  cr_expect_eq(read_text("# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n1   0.23\n"
                         "[node2:12345] mca: base: component_find: unable to open\n",
                         CAL_FORMAT_DETECT, 0, &t, err, sizeof err), -1);
  cr_expect(strstr(err, ":4: cannot read '[node2:12345]"), "%s", err);
  cr_expect_eq(read_text("1   0.23\n# Size          Latency (us)\n", CAL_FORMAT_OSU, 0, &t, err, sizeof err), -1);
  cr_expect(strstr(err, ":1: a row before the OSU header"), "%s", err);
  cr_expect_eq(read_text("# Size          Latency (us)\n8   0.23\n8   0.25\n", CAL_FORMAT_DETECT, 0, &t, err, sizeof err),
               -1);
  cr_expect(strstr(err, ":3: size 8 appears twice (first on line 2)"), "%s", err);
  cr_expect_eq(read_text("       1 0.499560\n", CAL_FORMAT_DETECT, 0, &t, err, sizeof err), -1);
  cr_expect(strstr(err, ":1: cannot read '1 0.499560': a NetPIPE np.out row"), "%s", err);
}

/* Rows are checked against one another for repeated sizes, so a table is bounded: 4096 rows read,
 * one more refused with its line (a hostile file of a million rows would otherwise take hours). */
Test(tables, row_bound)
{
  struct cal_table t;
  char err[512];
  for (int rows = 4096; rows <= 4097; rows++) {
    size_t cap = (size_t)rows * 32 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "# Size      Bandwidth (MB/s)\n");
    for (int r = 0; r < rows; r++)
      len += (size_t)snprintf(text + len, cap - len, "%d 1.00\n", r + 1);
    int rc = read_text(text, CAL_FORMAT_DETECT, 0, &t, err, sizeof err);
    free(text);
    if (rows == 4096) {
      cr_assert_eq(rc, 0, "%s", err);
      cr_expect_eq(t.n, 4096);
      cal_table_free(&t);
    } else {
      cr_assert_eq(rc, -1);
      cr_expect(strstr(err, ":4098: more than 4096 rows") != NULL, "%s", err);
    }
  }
}
