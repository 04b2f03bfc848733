#include <criterion/criterion.h>
#include <math.h>
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

Test(units, only_plain_decimal_numbers)
{
  /* strtod would read each of these; none is how a machine's figure is written */
  parse_bad("0x10MBps", ICSIM_DIM_BANDWIDTH, "not a number");
  parse_bad("0x10", ICSIM_DIM_NONE, "not a number");
  parse_bad("inf", ICSIM_DIM_TIME, "not a number");
  parse_bad("-infs", ICSIM_DIM_TIME, "not a number");
  parse_bad("nan", ICSIM_DIM_NONE, "not a number");
  parse_bad("NaNs", ICSIM_DIM_TIME, "not a number");
  parse_bad(".5us", ICSIM_DIM_TIME, "not a number");
  parse_bad("5.us", ICSIM_DIM_TIME, "not a number");
  parse_bad("1.2.3s", ICSIM_DIM_TIME, "not a number");
  parse_bad(" 4", ICSIM_DIM_NONE, "spaces around it");
  parse_bad("4MBps ", ICSIM_DIM_BANDWIDTH, "spaces around it");
  parse_bad("4 MBps", ICSIM_DIM_BANDWIDTH, "unknown unit ' MBps'");
  cr_assert_float_eq(parse_ok("1e-3s", ICSIM_DIM_TIME), 1e-3, 1e-18);
  cr_assert_float_eq(parse_ok("+2.5E2us", ICSIM_DIM_TIME), 250e-6, 1e-18);
  cr_assert_float_eq(parse_ok("-4", ICSIM_DIM_NONE), -4, 0); /* the bounds of each row refuse it where it is wrong */
  double zero = parse_ok("-0s", ICSIM_DIM_TIME);
  cr_assert(zero == 0 && !signbit(zero), "-0s reads as 0");
}

Test(units, numbers_too_large_to_hold)
{
  parse_bad("1e400s", ICSIM_DIM_TIME, "too large or too small");
  parse_bad("1e-400s", ICSIM_DIM_TIME, "too large or too small");
  /* finite number, infinite once multiplied by the unit: 1e300 x 1e12 */
  parse_bad("1e300TBps", ICSIM_DIM_BANDWIDTH, "too large to hold");
  cr_assert_float_eq(parse_ok("1e290TBps", ICSIM_DIM_BANDWIDTH), 1e302, 1e288);
}
