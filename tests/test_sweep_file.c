/* Sweep files (sim/sweep_file.c): points in the documented order, ranges and units, variants, and
 * every refusal located at the line and column of the mistake (counted by hand in the data files). */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

#define DATA ICSIM_SRC "/tests/data/sweeps/"

static void refused(const char *name, const char *where, const char *phrase)
{
  struct sweep s;
  struct sweep_point *p = NULL;
  char err[4096] = "", path[512];
  snprintf(path, sizeof path, DATA "%s", name);
  int rc = sweep_load(path, &s, err, sizeof err);
  if (rc == 0) { /* some mistakes are only seen at a point */
    int n = sweep_points(&s, &p, err, sizeof err);
    sweep_points_free(p, n);
    sweep_free(&s);
    rc = n < 0 ? -1 : 0;
  }
  cr_assert_neq(rc, 0, "%s should be refused", name);
  printf("%s -> %s\n", name, err);
  cr_assert(strstr(err, where), "%s: expected '%s' in: %s", name, where, err);
  cr_assert(strstr(err, phrase), "%s: expected '%s' in: %s", name, phrase, err);
}

Test(sweep_file, cross_order_variants_and_units)
{
  struct sweep s;
  struct sweep_point *p;
  char err[4096];
  cr_assert_eq(sweep_load(DATA "good.yaml", &s, err, sizeof err), 0, "%s", err);
  int n = sweep_points(&s, &p, err, sizeof err);
  cr_assert_eq(n, 8, "2 bandwidths x 2 sizes x 2 variants: %d (%s)", n, err);
  cr_assert_eq(s.naxes, 3);
  cr_assert_str_eq(s.axes[0].header, "network/link-bandwidth[Bps]");
  cr_assert_str_eq(s.axes[1].header, "size[B]"); /* 1KiB, 64KiB: the program gets bytes */
  cr_assert_str_eq(s.axes[2].header, "sender");
  /* the first axis varies slowest: point 5 = bandwidth 1, size 0, variant 1 */
  cr_assert_eq(p[5].vi[0], 1);
  cr_assert_eq(p[5].vi[1], 0);
  cr_assert_eq(p[5].vi[2], 1);
  cr_assert_str_eq(s.axes[0].cell[1], "100000000");
  cr_assert_str_eq(s.axes[1].text[0], "1024");
  cr_assert_str_eq(s.axes[2].text[1], "slow send");
  /* fixed sets first, then the axes' in axis order */
  const char *want[] = {"generic/recv-overhead=3us", "network/link-bandwidth=100MBps", "generic/send-overhead=12us"};
  cr_assert_eq(p[5].nsets, 3);
  for (int k = 0; k < 3; k++)
    cr_assert_str_eq(p[5].sets[k], want[k]);
  const char *args[] = {"-m", "1024:1024", "-i", "20", "-x", "2", NULL};
  for (int k = 0; args[k]; k++)
    cr_assert_str_eq(p[5].args[k], args[k]);
  cr_assert_null(p[5].args[6]);
  cr_assert_eq(p[5].ranks, 2);
  cr_assert_str_eq(p[5].place, "2x1");
  cr_assert(strstr(p[5].platform, "/tests/data/pingpong-2node.yaml"), "%s", p[5].platform); /* beside the file */
  /* every point its own run; the same file gives the same ids */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++)
      cr_assert_str_neq(p[i].id, p[k].id, "points %d and %d share an id", i, k);
  struct sweep s2;
  struct sweep_point *p2;
  cr_assert_eq(sweep_load(DATA "good.yaml", &s2, err, sizeof err), 0);
  cr_assert_eq(sweep_points(&s2, &p2, err, sizeof err), 8);
  for (int i = 0; i < n; i++)
    cr_assert_str_eq(p[i].id, p2[i].id);
  sweep_points_free(p2, 8);
  sweep_free(&s2);
  sweep_points_free(p, n);
  sweep_free(&s);
}

Test(sweep_file, ranges_zip_and_their_units)
{
  struct sweep s;
  struct sweep_point *p;
  char err[4096];
  cr_assert_eq(sweep_load(DATA "ranges.yaml", &s, err, sizeof err), 0, "%s", err);
  int n = sweep_points(&s, &p, err, sizeof err);
  cr_assert_eq(n, 4, "zip of three axes of 4 values: %d (%s)", n, err);
  /* 50us + k x 50us up to 200us; 1KiB x 2^k up to 8KiB; 0.1 + k x 0.1 up to 0.4 (no 0.30000000000000004) */
  const char *lat[] = {"50us", "100us", "150us", "200us"}, *eager[] = {"1KiB", "2KiB", "4KiB", "8KiB"},
             *eager_cell[] = {"1024", "2048", "4096", "8192"}, *x[] = {"0.1", "0.2", "0.3", "0.4"};
  const double lat_s[] = {50e-6, 100e-6, 150e-6, 200e-6};
  for (int k = 0; k < 4; k++) {
    cr_assert_str_eq(s.axes[0].text[k], lat[k]);
    cr_assert_float_eq(strtod(s.axes[0].cell[k], NULL), lat_s[k], 1e-15);
    cr_assert_str_eq(s.axes[1].text[k], eager[k]);
    cr_assert_str_eq(s.axes[1].cell[k], eager_cell[k]);
    cr_assert_str_eq(s.axes[2].text[k], x[k]);
    for (int a = 0; a < 3; a++)
      cr_assert_eq(p[k].vi[a], k, "zip: point %d takes value %d of every axis", k, k);
  }
  cr_assert_str_eq(s.axes[0].header, "network/link-latency[s]");
  cr_assert_str_eq(s.axes[2].header, "n");
  sweep_points_free(p, n);
  sweep_free(&s);
}

Test(sweep_file, bare_numbers_go_with_the_unit_of_the_others)
{
  struct sweep s;
  struct sweep_point *p;
  char err[4096];
  cr_assert_eq(sweep_load(DATA "slow.yaml", &s, err, sizeof err), 0, "%s", err);
  int n = sweep_points(&s, &p, err, sizeof err);
  cr_assert_eq(n, 6, "%s", err);
  cr_assert_str_eq(s.axes[0].header, "size[B]"); /* [0, 1KiB, ..., 16KiB] */
  cr_assert_str_eq(s.axes[0].text[0], "0");
  cr_assert_str_eq(s.axes[0].text[5], "16384");
  cr_assert_str_eq(p[5].args[1], "16384:16384");
  sweep_points_free(p, n);
  sweep_free(&s);
}

Test(sweep_file, mistakes_are_located)
{
  refused("bad-unit.yaml", "bad-unit.yaml:7:20:", "a time is expected");
  refused("bad-key.yaml", "bad-key.yaml:6:10:", "did you mean 'generic/send-overhead'");
  refused("bad-var.yaml", "bad-var.yaml:4:7:", "{sise}");
  refused("bad-zip.yaml", "bad-zip.yaml:5:10:", "'a' has 2 values and 'b' 3");
  refused("bad-range.yaml", "bad-range.yaml:7:19:", "one of `step`");
  refused("bad-plot.yaml", "bad-plot.yaml:13:8:", "'latency' is not a figure");
  refused("bad-variant.yaml", "bad-variant.yaml:9:16:", "has no 'label'");
  /* a combination only wrong at one point: the point is named */
  refused("bad-place.yaml", "point 1 (r=3)", "3 ranks, place 2x1");
}

Test(sweep_file, readme_key_table_is_the_schema)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  sweep_keys_markdown(f);
  fclose(f);
  FILE *r = fopen(ICSIM_SRC "/README.md", "r");
  cr_assert_not_null(r);
  char line[4096];
  int rows = 0, found = 0;
  for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    rows++;
  /* every row of the generated table appears verbatim in the README's sweep section */
  char *readme = NULL;
  size_t rlen = 0;
  FILE *m = open_memstream(&readme, &rlen);
  while (fgets(line, sizeof line, r))
    fputs(line, m);
  fclose(m);
  fclose(r);
  for (char *l = text; l && *l;) {
    char *nl = strchr(l, '\n');
    *nl = '\0';
    found += strstr(readme, l) != NULL;
    cr_expect(strstr(readme, l) != NULL, "README.md lacks the row: %s (regenerate with `icsim sweep --keys`)", l);
    l = nl + 1;
  }
  cr_assert_eq(found, rows);
  free(text);
  free(readme);
}

Test(sweep_file, shipped_sweeps_load)
{
  glob_t g;
  cr_assert_eq(glob(ICSIM_SRC "/stacks/*/*.sweep.yaml", 0, NULL, &g), 0);
  cr_assert_geq(g.gl_pathc, 3, "the RapidIO studies");
  for (size_t i = 0; i < g.gl_pathc; i++) {
    struct sweep s;
    struct sweep_point *p;
    char err[4096];
    cr_assert_eq(sweep_load(g.gl_pathv[i], &s, err, sizeof err), 0, "%s", err);
    int n = sweep_points(&s, &p, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    printf("%s: %d points\n", g.gl_pathv[i], n);
    sweep_points_free(p, n);
    sweep_free(&s);
  }
  globfree(&g);
}
