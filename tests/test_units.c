#include <criterion/criterion.h>
#include <string.h>

#include "units.h"

static double parse_ok(const char *text, enum icsim_dim dim)
{
  char err[256];
  double v = -1;
  cr_assert_eq(icsim_parse_quantity(text, dim, &v, err, sizeof err), 0, "%s: %s", text, err);
  return v;
}

static void parse_bad(const char *text, enum icsim_dim dim, const char *needle)
{
  char err[256] = "";
  double v;
  cr_assert_neq(icsim_parse_quantity(text, dim, &v, err, sizeof err), 0, "%s should be refused", text);
  cr_assert(strstr(err, needle), "message for '%s' was '%s', expected to contain '%s'", text, err, needle);
}

Test(units, simgrid_style_values)
{
  cr_assert_float_eq(parse_ok("192MBps", ICSIM_DIM_BANDWIDTH), 192e6, 1e-3);
  cr_assert_float_eq(parse_ok("1Gbps", ICSIM_DIM_BANDWIDTH), 125e6, 1e-3);
  cr_assert_float_eq(parse_ok("1KiBps", ICSIM_DIM_BANDWIDTH), 1024, 1e-9);
  cr_assert_float_eq(parse_ok("5us", ICSIM_DIM_TIME), 5e-6, 1e-15);
  cr_assert_float_eq(parse_ok("2.5ms", ICSIM_DIM_TIME), 2.5e-3, 1e-15);
  cr_assert_float_eq(parse_ok("3.8GHz", ICSIM_DIM_FREQUENCY), 3.8e9, 1);
  cr_assert_float_eq(parse_ok("1Gf", ICSIM_DIM_SPEED), 1e9, 1);
  cr_assert_float_eq(parse_ok("4KiB", ICSIM_DIM_SIZE), 4096, 1e-9);
  cr_assert_float_eq(parse_ok("256B", ICSIM_DIM_SIZE), 256, 1e-9);
  cr_assert_float_eq(parse_ok("8", ICSIM_DIM_NONE), 8, 1e-9);
}

Test(units, wrong_or_missing_units_are_refused_with_a_hint)
{
  parse_bad("192MB", ICSIM_DIM_BANDWIDTH, "is a size, but a bandwidth is expected");
  parse_bad("192", ICSIM_DIM_BANDWIDTH, "has no unit");
  parse_bad("5uss", ICSIM_DIM_TIME, "unknown unit");
  parse_bad("1KB", ICSIM_DIM_SIZE, "ambiguous");
  parse_bad("abc", ICSIM_DIM_TIME, "not a number");
  parse_bad("3GHz", ICSIM_DIM_TIME, "is a frequency");
  parse_bad("4s", ICSIM_DIM_NONE, "takes no unit");
  parse_bad("", ICSIM_DIM_SIZE, "empty");
}

Test(units, formatting_reads_back)
{
  char buf[64];
  cr_assert_str_eq(icsim_format_quantity(192e6, ICSIM_DIM_BANDWIDTH, buf, sizeof buf), "192MBps");
  cr_assert_str_eq(icsim_format_quantity(6e-6, ICSIM_DIM_TIME, buf, sizeof buf), "6us");
  cr_assert_str_eq(icsim_format_quantity(4096, ICSIM_DIM_SIZE, buf, sizeof buf), "4KiB");
  cr_assert_str_eq(icsim_format_quantity(3.8e9, ICSIM_DIM_FREQUENCY, buf, sizeof buf), "3.8GHz");
}
