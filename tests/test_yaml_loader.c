/* Every bad-input path of the platform loader gives file:line:column and a fix. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

static const char *good =
    "name: t\n"
    "layers: [generic]\n"
    "nodes:\n"
    "  count: 4\n"
    "  clock: 1GHz\n"
    "  speed: 1Gf\n"
    "network:\n"
    "  topology: star\n"
    "  link-bandwidth: 192MBps\n";

static char path[64];

static void write_yaml(const char *text)
{
  snprintf(path, sizeof path, "/tmp/icsim-test-%d.yaml", (int)getpid());
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* Replace the first occurrence of OLD in the good file by NEW and load it. */
static int load_variant(const char *old, const char *new, char *err, size_t errlen)
{
  char text[2048];
  const char *at = strstr(good, old);
  cr_assert(at, "fixture lacks '%s'", old);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, new, at + strlen(old));
  write_yaml(text);
  struct icsim_platform pf;
  int rc = icsim_platform_load(&pf, path, NULL, 0, err, errlen);
  if (rc == 0)
    icsim_platform_free(&pf);
  unlink(path);
  return rc;
}

static void expect_error(const char *old, const char *new, const char *location, const char *needle)
{
  char err[1024] = "";
  cr_assert_neq(load_variant(old, new, err, sizeof err), 0, "'%s' -> '%s' should fail", old, new);
  char where[128];
  snprintf(where, sizeof where, "%s%s", path, location);
  cr_assert(strncmp(err, where, strlen(where)) == 0, "error '%s' should start with '%s'", err, where);
  cr_assert(strstr(err, needle), "error '%s' should contain '%s'", err, needle);
}

Test(yaml_loader, good_file_loads)
{
  char err[1024];
  cr_assert_eq(load_variant("name: t", "name: t", err, sizeof err), 0, "%s", err);
}

Test(yaml_loader, syntax_error_is_located)
{
  expect_error("  clock: 1GHz\n", "  clock 1GHz\n", ":5:3", "YAML syntax error");
}

Test(yaml_loader, unknown_key_suggests_the_closest)
{
  expect_error("link-bandwidth", "link-bandwith", ":9:3", "did you mean 'network/link-bandwidth'");
}

Test(yaml_loader, missing_required_key)
{
  expect_error("  clock: 1GHz\n", "", "", "missing required key 'nodes/clock'");
}

Test(yaml_loader, wrong_type)
{
  expect_error("count: 4", "count: four", ":4:10", "not a whole number");
}

Test(yaml_loader, out_of_range)
{
  expect_error("count: 4", "count: 0", ":4:10", "out of range");
}

Test(yaml_loader, size_given_for_a_bandwidth)
{
  expect_error("192MBps", "192MB", ":9:19", "is a size, but a bandwidth is expected");
}

Test(yaml_loader, missing_unit)
{
  expect_error("192MBps", "192", ":9:19", "has no unit");
}

Test(yaml_loader, unknown_topology)
{
  expect_error("topology: star", "topology: hypercube", ":8:13", "not one of star|full|ring|torus3d|fat-tree2");
}

Test(yaml_loader, unknown_layer)
{
  expect_error("layers: [generic]", "layers: [myrinet]", ":2:10", "unknown layer 'myrinet'; network stacks: generic");
}

Test(yaml_loader, old_stack_key_names_the_new_form)
{
  expect_error("layers: [generic]", "stack: generic", ":2:1", "list the layers from the program down to the hardware");
}

Test(yaml_loader, layers_that_cannot_hold_together)
{
  expect_error("layers: [generic]", "layers: [numa]", ":2:10", "no network stack among the layers");
  expect_error("layers: [generic]", "layers: [numa, generic]", ":2:10", "must be listed after the network stack");
  expect_error("layers: [generic]", "layers: [generic, rapidio]", ":2:10", "two network stacks");
  expect_error("layers: [generic]", "layers: [rapidio, numa]", ":2:10", "cannot hold together");
  expect_error("layers: [generic]", "layers: [generic, generic]", ":2:19", "listed twice");
  expect_error("layers: [generic]", "layers: generic", ":2:9", "must be a list");
}

Test(yaml_loader, torus_dims_must_match_node_count)
{
  expect_error("topology: star", "topology: torus3d\n  torus-dims: 2x2x2", ":9:15", "holds 8 nodes but nodes/count is 4");
}

Test(yaml_loader, duplicate_key)
{
  expect_error("  speed: 1Gf\n", "  speed: 1Gf\n  speed: 2Gf\n", ":7:3", "given twice");
}

Test(yaml_loader, provenance_form_and_bad_origin)
{
  char err[1024];
  cr_assert_eq(load_variant("192MBps", "{value: 192MBps, origin: paper, ref: test bed}", err, sizeof err), 0, "%s",
               err);
  expect_error("192MBps", "{value: 192MBps, origin: guessed}", ":9:44", "origin 'guessed'"); /* at the origin itself */
}

/* ---- ranges: `range: [LO, HI]` with its `range-ref`, checked against the value and the descriptor ---- */

static const char *ranged = "{value: 192MBps, origin: assumed, ref: r, range: [100MBps, 250MBps], range-ref: why}";

Test(yaml_loader, range_is_read_and_described)
{
  char text[2048];
  const char *at = strstr(good, "192MBps");
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, ranged, at + strlen("192MBps"));
  write_yaml(text);
  struct icsim_platform pf;
  char err[1024];
  cr_assert_eq(icsim_platform_load(&pf, path, NULL, 0, err, sizeof err), 0, "%s", err);
  const struct icsim_pval *pv = icsim_params_find(&pf.params, "network/link-bandwidth");
  cr_assert(pv->has_range && !pv->range_held);
  cr_assert_float_eq(pv->lo, 100e6, 1e-3);
  cr_assert_float_eq(pv->hi, 250e6, 1e-3);
  cr_assert_str_eq(pv->range_ref, "why");
  cr_assert(icsim_param_sampled(pv));
  cr_assert_eq(icsim_param_range_need(pv), ICSIM_RANGE_NEEDED); /* assumed */
  icsim_platform_free(&pf);
  /* --set replaces the value: the range no longer applies, the sampler holds it */
  char *set[] = {"network/link-bandwidth=300MBps"};
  cr_assert_eq(icsim_platform_load(&pf, path, set, 1, err, sizeof err), 0, "%s", err);
  pv = icsim_params_find(&pf.params, "network/link-bandwidth");
  cr_assert(pv->has_range && pv->range_held && !icsim_param_sampled(pv));
  cr_assert_eq(icsim_param_range_need(pv), ICSIM_RANGE_HELD);
  icsim_platform_free(&pf);
  unlink(path);
}

Test(yaml_loader, range_needs_and_structure)
{
  write_yaml(good);
  struct icsim_platform pf;
  char err[1024];
  cr_assert_eq(icsim_platform_load(&pf, path, NULL, 0, err, sizeof err), 0, "%s", err);
  /* left at a default: needs one; a "0 = not described" default: structure; a switch: structure */
  cr_assert_eq(icsim_param_range_need(icsim_params_find(&pf.params, "network/link-latency")), ICSIM_RANGE_NEEDED);
  cr_assert_eq(icsim_param_range_need(icsim_params_find(&pf.params, "nodes/l1-size")), ICSIM_RANGE_STRUCTURE);
  cr_assert_eq(icsim_param_range_need(icsim_params_find(&pf.params, "network/topology")), ICSIM_RANGE_STRUCTURE);
  cr_assert_eq(icsim_param_range_need(icsim_params_find(&pf.params, "nodes/count")), ICSIM_RANGE_NEEDED);
  /* a fat-tree key on a star: not used, so no range can apply */
  cr_assert_eq(icsim_param_range_need(icsim_params_find(&pf.params, "network/leaf-size")), ICSIM_RANGE_UNUSED);
  icsim_platform_free(&pf);
  unlink(path);
}

/* Load TEXT (a whole platform file) and return the range need of KEY. */
static enum icsim_range_need need_of(const char *text, const char *key)
{
  write_yaml(text);
  struct icsim_platform pf;
  char err[1024];
  cr_assert_eq(icsim_platform_load(&pf, path, NULL, 0, err, sizeof err), 0, "%s", err);
  const struct icsim_pval *pv = icsim_params_find(&pf.params, key);
  cr_assert(pv, "no key %s", key);
  enum icsim_range_need k = icsim_param_range_need(pv);
  icsim_platform_free(&pf);
  unlink(path);
  return k;
}

/* A key read only by a mechanism the platform switches off is unused there, not missing; the
 * same key is needed again once the mechanism is on. */
Test(yaml_loader, switched_off_keys_are_unused_not_needed)
{
  /* no L1 described: its latency is read by nothing */
  cr_assert_eq(need_of(good, "nodes/l1-latency"), ICSIM_RANGE_UNUSED);
  cr_assert_eq(need_of(good, "nodes/cache-line"), ICSIM_RANGE_UNUSED);
  cr_assert_eq(need_of(good, "nodes/socket-link-latency"), ICSIM_RANGE_UNUSED); /* one socket */
  cr_assert_eq(need_of(good, "mpi/alltoall-long-batched-min-procs"), ICSIM_RANGE_UNUSED);
  /* written out with an assumed origin, still unused while the switch is off */
  char text[2048];
  const char *at = strstr(good, "  speed: 1Gf\n") + strlen("  speed: 1Gf\n");
  snprintf(text, sizeof text, "%.*s  l1-latency: {value: 1ns, origin: assumed, ref: r}\n%s", (int)(at - good), good,
           at);
  cr_assert_eq(need_of(text, "nodes/l1-latency"), ICSIM_RANGE_UNUSED);
  /* an L1 described and two sockets: the same values are read and need a range */
  snprintf(text, sizeof text, "%.*s  l1-size: 32KiB\n  sockets: 2\n%s", (int)(at - good), good, at);
  cr_assert_eq(need_of(text, "nodes/l1-latency"), ICSIM_RANGE_NEEDED);
  cr_assert_eq(need_of(text, "nodes/cache-line"), ICSIM_RANGE_NEEDED);
  cr_assert_eq(need_of(text, "nodes/socket-link-latency"), ICSIM_RANGE_NEEDED);
  cr_assert_eq(need_of(text, "nodes/l2-latency"), ICSIM_RANGE_UNUSED); /* L2 still not described */
}

/* The sentinel rule reads any wording that gives 0 a meaning of its own, not only "0 = ". */
Test(yaml_loader, zero_sentinel_wordings)
{
  cr_assert(icsim_help_gives_zero_meaning("cache size (0 = not described)"));
  cr_assert(icsim_help_gives_zero_meaning("rate of one stream (0: plain fair sharing)"));
  cr_assert(icsim_help_gives_zero_meaning("0=off"));
  cr_assert(icsim_help_gives_zero_meaning("bound per core; 0 means the socket's"));
  cr_assert(!icsim_help_gives_zero_meaning("up to 10: the limit"));
  cr_assert(!icsim_help_gives_zero_meaning("version 1.0: the first"));
  cr_assert(!icsim_help_gives_zero_meaning("sent through mailbox 0 (a control message)"));
  cr_assert(!icsim_help_gives_zero_meaning("0.5 = half"));
  cr_assert(!icsim_help_gives_zero_meaning("a == 0 == b"));
  cr_assert(!icsim_help_gives_zero_meaning(NULL));
  /* on a table row written "(0: ...)": numa/qpi-stream-bandwidth left at its 0 is structure */
  char text[2048];
  const char *at = strstr(good, "layers: [generic]");
  snprintf(text, sizeof text, "%.*slayers: [generic, numa]%s", (int)(at - good), good, at + strlen("layers: [generic]"));
  cr_assert_eq(need_of(text, "numa/qpi-stream-bandwidth"), ICSIM_RANGE_STRUCTURE);
}

/* A capacity limit (how many communicators MPICH allows) moves no time: it needs no range. */
Test(yaml_loader, capacity_limits_need_no_range)
{
  cr_assert_eq(need_of(good, "mpi/context-ids"), ICSIM_RANGE_CAPACITY);
  /* a timing value of the same table left at its default still needs one */
  cr_assert_eq(need_of(good, "network/link-latency"), ICSIM_RANGE_NEEDED);
}

Test(yaml_loader, bad_ranges_are_refused_where_they_stand)
{
  /* line 9 "  link-bandwidth: {value: 192MBps, ...": the range at column 68 */
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [200MBps, 250MBps], range-ref: w}",
               ":9:68", "outside its own range");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [250MBps, 100MBps], range-ref: w}",
               ":9:68", "low end is above the high end");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [100MBps, 250MBps]}", ":9:68",
               "no range-ref");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range-ref: w}", ":9:72", "no range");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [1Bps, 250MBps], range-ref: w}", ":9:68",
               "out of range"); /* below the descriptor's 1 kB/s */
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [100MB, 250MBps], range-ref: w}",
               ":9:68", "low end");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: 100MBps, range-ref: w}", ":9:68",
               "list of two values");
  expect_error("192MBps", "{value: 192MBps, origin: assumed, ref: r, range: [1, 2, 3], range-ref: w}", ":9:68",
               "list of two values");
  expect_error("192MBps", "{origin: assumed, range: [1, 2], range-ref: w}", ":9:19", "no value");
  expect_error("  topology: star\n", "  topology: {value: star, range: [star, ring], range-ref: w}\n", ":8:34",
               "takes no range");
}

Test(yaml_loader, missing_file)
{
  struct icsim_platform pf;
  char err[512];
  cr_assert_neq(icsim_platform_load(&pf, "/nonexistent/p.yaml", NULL, 0, err, sizeof err), 0);
  cr_assert(strstr(err, "/nonexistent/p.yaml: cannot open"), "%s", err);
}

Test(yaml_loader, set_overrides_and_errors)
{
  write_yaml(good);
  struct icsim_platform pf;
  char err[1024];
  char *ok[] = {"network/link-bandwidth=1Gbps"};
  cr_assert_eq(icsim_platform_load(&pf, path, ok, 1, err, sizeof err), 0, "%s", err);
  cr_assert_float_eq(pf.p.link_bw_Bps, 125e6, 1e-3);
  cr_assert_str_eq(icsim_params_find(&pf.params, "network/link-bandwidth")->where, "--set");
  icsim_platform_free(&pf);
  char *bad[] = {"network/link-bandwidth=1GB"};
  cr_assert_neq(icsim_platform_load(&pf, path, bad, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "--set network/link-bandwidth=1GB"), "%s", err);
  char *noeq[] = {"network/link-bandwidth"};
  cr_assert_neq(icsim_platform_load(&pf, path, noeq, 1, err, sizeof err), 0);
  cr_assert(strstr(err, "write key=value"), "%s", err);
  unlink(path);
}

/* ---- hostile input: the reader itself (icsim_yaml_load), each limit at and past its edge ---- */

#include "yaml_flat.h"

/* Load TEXT (LEN bytes) as a file; 0 or -1 with ERR. OUT is freed unless KEEP. */
static int yload_n(const char *text, size_t len, struct icsim_yfile *out, char *err, size_t errlen)
{
  snprintf(path, sizeof path, "/tmp/icsim-test-%d.yaml", (int)getpid());
  FILE *f = fopen(path, "w");
  fwrite(text, 1, len, f);
  fclose(f);
  int rc = icsim_yaml_load(path, out, err, errlen);
  unlink(path);
  return rc;
}

static int yload(const char *text, struct icsim_yfile *out, char *err, size_t errlen)
{
  return yload_n(text, strlen(text), out, err, errlen);
}

/* TEXT must be refused with a message at LOCATION (":line:col", "" for none) holding NEEDLE. */
static void refused(const char *text, size_t len, const char *location, const char *needle)
{
  struct icsim_yfile y;
  char err[2048] = "", where[128];
  cr_assert_neq(yload_n(text, len, &y, err, sizeof err), 0, "accepted: %.80s", text);
  snprintf(where, sizeof where, "%s%s", path, location);
  cr_assert(strncmp(err, where, strlen(where)) == 0, "error '%s' should start with '%s'", err, where);
  cr_assert(strstr(err, needle), "error '%s' should contain '%s'", err, needle);
}
#define REFUSED(text, location, needle) refused(text, sizeof(text) - 1, location, needle)

Test(hostile, alias_to_an_enclosing_anchor_is_a_loop)
{
  REFUSED("a: 1\nloop: &l [*l]\n", ":2:7", "'loop/0' contains itself");
  REFUSED("a: &m {b: {c: *m}}\n", ":1:12", "'a/b/c' contains itself");
}

Test(hostile, aliases_of_complete_nodes_are_read)
{
  struct icsim_yfile y;
  char err[1024];
  cr_assert_eq(yload("x: &v 5us\ny: *v\np: &m {a: 1, b: [2, 3]}\nq: *m\n", &y, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(icsim_yaml_get(&y, "y")->value, "5us");
  cr_assert_str_eq(icsim_yaml_get(&y, "q/b/1")->value, "3");
  cr_assert_eq(y.n, 8); /* x, y, p/a, p/b/0, p/b/1, q/a, q/b/0, q/b/1 */
  icsim_yaml_free(&y);
}

Test(hostile, alias_bomb_stops_at_the_limit)
{
  /* a0 holds 10 scalars, each further level 10 aliases of the previous: a9 reaches 10^10 nodes */
  char text[4096] = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; i++) {
    snprintf(text + strlen(text), sizeof text - strlen(text), "a%d: &a%d [", i, i);
    for (int k = 0; k < 10; k++)
      snprintf(text + strlen(text), sizeof text - strlen(text), "*a%d%s", i - 1, k < 9 ? ", " : "]\n");
  }
  refused(text, strlen(text), ":", "aliases (*name) expand to more than 10000 nodes");
  /* 10 + 10 x 11 = 120 nodes through aliases at two levels: far below it */
  struct icsim_yfile y;
  char err[1024];
  cr_assert_eq(yload("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\na1: [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n",
                     &y, err, sizeof err),
               0, "%s", err);
  cr_assert_eq(y.n, 110);
  icsim_yaml_free(&y);
}

Test(hostile, anchors_are_bounded)
{
  /* libyaml compares every anchor with the earlier ones: 60 000 took 7 s of CPU */
  size_t cap = 1 << 20, len = (size_t)snprintf(NULL, 0, "a: [");
  char *t = malloc(cap);
  strcpy(t, "a: [");
  for (int i = 0; i <= ICSIM_YAML_MAX_ANCHORS; i++)
    len += (size_t)snprintf(t + len, cap - len, "&a%d x, ", i);
  len += (size_t)snprintf(t + len, cap - len, "y]\n");
  refused(t, len, ":1:", "more than 1000 anchors (&name)");
  struct icsim_yfile y;
  char err[1024];
  len = (size_t)snprintf(t, cap, "a: [");
  for (int i = 0; i < ICSIM_YAML_MAX_ANCHORS; i++)
    len += (size_t)snprintf(t + len, cap - len, "&a%d x, ", i);
  len += (size_t)snprintf(t + len, cap - len, "*a999]\n");
  cr_assert_eq(yload_n(t, len, &y, err, sizeof err), 0, "exactly 1000 anchors: %s", err);
  cr_assert_str_eq(icsim_yaml_get(&y, "a/1000")->value, "x");
  icsim_yaml_free(&y);
  free(t);
}

/* "a: " then DEPTH nested lists around one scalar: the scalar is at depth DEPTH + 1. */
static char *nested(int depth)
{
  char *t = malloc((size_t)depth * 2 + 16);
  strcpy(t, "a: ");
  memset(t + 3, '[', (size_t)depth);
  strcpy(t + 3 + depth, "x");
  memset(t + 4 + depth, ']', (size_t)depth);
  strcpy(t + 4 + 2 * depth, "\n");
  return t;
}

Test(hostile, nesting_is_bounded)
{
  struct icsim_yfile y;
  char err[1024];
  char *ok = nested(ICSIM_YAML_MAX_DEPTH - 1);
  cr_assert_eq(yload(ok, &y, err, sizeof err), 0, "%s", err);
  icsim_yaml_free(&y);
  free(ok);
  char *deep = nested(ICSIM_YAML_MAX_DEPTH);
  refused(deep, strlen(deep), ":1:", "nested deeper than 32 levels");
  free(deep);
  deep = nested(100000); /* crashed the recursive walk */
  refused(deep, strlen(deep), ":1:", "nested deeper than 32 levels");
  free(deep);
}

Test(hostile, many_keys_are_indexed_and_bounded)
{
  size_t cap = 400000, len = 0;
  char *t = malloc(cap);
  for (int i = 0; i < 20000; i++)
    len += (size_t)snprintf(t + len, cap - len, "k%d: %d\n", i, i);
  struct icsim_yfile y;
  char err[1024];
  cr_assert_eq(yload_n(t, len, &y, err, sizeof err), 0, "%s", err);
  cr_assert_eq(y.n, 20000);
  cr_assert_str_eq(icsim_yaml_get(&y, "k12345")->value, "12345");
  cr_assert_null(icsim_yaml_get(&y, "k20000"));
  icsim_yaml_free(&y);
  /* one key twice among them, far apart */
  len += (size_t)snprintf(t + len, cap - len, "k7: again\n");
  refused(t, len, ":20001:1", "key 'k7' given twice (first at line 8)");
  /* 100001 values in one list of 2-byte items */
  len = (size_t)snprintf(t, cap, "a: [");
  for (int i = 0; i <= ICSIM_YAML_MAX_ENTRIES; i++)
    len += (size_t)snprintf(t + len, cap - len, "1,");
  len += (size_t)snprintf(t + len - 1, cap - len + 1, "]\n") - 1;
  refused(t, len, ":", "more than 100000 values in one file");
  free(t);
}

Test(hostile, file_size_is_bounded)
{
  size_t n = ICSIM_YAML_MAX_BYTES;
  char *t = malloc(n + 1);
  memset(t, '#', n + 1); /* one long comment after a key */
  memcpy(t, "a: 1\n", 5);
  t[n - 1] = '\n';
  struct icsim_yfile y;
  char err[1024];
  cr_assert_eq(yload_n(t, n, &y, err, sizeof err), 0, "exactly the limit: %s", err);
  icsim_yaml_free(&y);
  t[n] = '\n';
  refused(t, n + 1, ": larger than 1024 KiB", "the most icsim reads from one file");
  free(t);
  cr_assert_neq(icsim_yaml_load("/tmp", &y, err, sizeof err), 0);
  cr_assert(strstr(err, "/tmp: a folder, not a regular file"), "%s", err);
}

/* Only regular files are read (sim/paths.h): a FIFO nobody writes to is refused at once, not
 * waited on; a device (a terminal, /dev/zero) neither. */
Test(hostile, special_files_are_refused_without_blocking)
{
  char dir[] = "/tmp/icsim-yaml-fifo-XXXXXX", fifo[64];
  cr_assert(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  struct icsim_yfile y;
  char err[1024];
  alarm(10); /* a blocking open would hang here: let the test fail instead */
  cr_assert_neq(icsim_yaml_load(fifo, &y, err, sizeof err), 0);
  cr_assert(strstr(err, "a pipe (FIFO), not a regular file"), "%s", err);
  cr_assert_neq(icsim_yaml_load("/dev/zero", &y, err, sizeof err), 0);
  cr_assert(strstr(err, "a character device, not a regular file"), "%s", err);
  alarm(0);
  unlink(fifo);
  rmdir(dir);
}

Test(hostile, one_value_one_way)
{
  REFUSED("a: {value: 4, value: 5, origin: paper}\n", ":1:15", "'value' of 'a' given twice (first at line 1)");
  REFUSED("a: {value: 4, origin: paper, origin: spec}\n", ":1:30", "'origin' of 'a' given twice");
  REFUSED("a: {value: 4, orign: paper}\n", ":1:15", "'a' takes only value, origin, ref, range and range-ref");
  REFUSED("a: {origin: paper}\n", ":1:4", "'a' has origin, ref or range but no value");
  REFUSED("a: {value: [4]}\n", ":1:12", "'value' of 'a' must be a single value");
  REFUSED("a: {value: , origin: paper}\n", ":1:5", "'value' of 'a' has no value");
}

Test(hostile, nothing_is_dropped_silently)
{
  REFUSED("a: 1\nbogus: []\n", ":2:8", "'bogus' is an empty list");
  REFUSED("a: 1\nb: {}\n", ":2:4", "'b' is empty");
  REFUSED("a:\n  - x\n  -\n", ":3:4", "item 'a/1' is empty"); /* an empty item is where its value would be */
  REFUSED("a: 1\n---\nb: 2\n", ":2:1", "a second YAML document starts here");
  REFUSED("a: 1\n...\n---\n", ":3:1", "a second YAML document starts here");
  REFUSED("{}\n", ":1:1", "the file holds no keys");
  REFUSED("", ":1:1", "the file is empty");
  REFUSED("# only a comment\n\n", ":1:1", "the file is empty");
  REFUSED("- a\n", ":1:1", "the top level must be a mapping");
}

Test(hostile, keys_are_words)
{
  REFUSED("0: x\n", ":1:1", "key '0' is a number");
  REFUSED("layers: {0: generic}\n", ":1:10", "key '0' is a number");
  REFUSED("a b: 1\n", ":1:1", "key 'a b' contains ' '");
  REFUSED("\"\": 1\n", ":1:1", "empty key");
  REFUSED("base: &b {x: 1}\nc:\n  <<: *b\n", ":3:3", "merge keys ('<<') are not supported");
  REFUSED("\"a\\0b\": 1\n", ":1:1", "key holds byte 0x00");
  REFUSED("[a]: 1\n", ":1:1", "keys must be plain words");
}

Test(hostile, values_are_one_line_of_text)
{
  REFUSED("name: \"a\\0b\"\n", ":1:7", "holds a control character (0x00)");
  REFUSED("name: \"two\\nlines\"\n", ":1:7", "holds a control character (0x0a)");
  REFUSED("name: |\n  two\n  lines\n", ":1:7", "holds a control character (0x0a)");
  REFUSED("a: 1\nname: caf\xe9\n", ":2:10", "not UTF-8 text");
  REFUSED("a: 1\nb: x\x01y\n", ":2:5", "not UTF-8 text: control characters are not allowed");
  REFUSED("\x80\x81junk", ":1:1", "not UTF-8 text: invalid leading UTF-8 octet (byte 0x80)");
  /* a long line is only long: 200 000 characters in one value */
  size_t n = 200000;
  char *t = malloc(n + 16);
  memcpy(t, "name: ", 6);
  memset(t + 6, 'x', n);
  strcpy(t + 6 + n, "\n");
  struct icsim_yfile y;
  char err[1024];
  cr_assert_eq(yload(t, &y, err, sizeof err), 0, "%s", err);
  cr_assert_eq(strlen(icsim_yaml_get(&y, "name")->value), n);
  icsim_yaml_free(&y);
  free(t);
}

Test(hostile, syntax_errors_point_at_the_bad_line)
{
  /* an over-indented key: the colon on line 3 */
  REFUSED("nodes:\n  count: 4\n   clock: 1GHz\n", ":3:9", "check this line's indentation");
  /* an under-indented key: line 3, not the mapping on line 1 */
  REFUSED("network:\n  topology: star\n link-bandwidth: 1Gbps\n", ":3:2", "indentation matches no key above it");
  REFUSED("name: t\nlayers:\n  - generic\n - numa\n", ":4:2", "indentation matches no key above it");
  /* a key without its colon: where the key starts */
  REFUSED("nodes:\n  count: 4\n  clock 1GHz\n  speed: 1Gf\n", ":3:3", "write 'key: value'");
  REFUSED("name: t\nnodes:\n\tcount: 4\n", ":3:1", "tabs cannot indent YAML");
  REFUSED("name: \"t\nnodes: 3\n", ":1:7", "while scanning a quoted scalar that starts here");
}
