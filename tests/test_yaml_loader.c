/* Every bad-input path of the platform loader gives file:line:column and a fix. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
