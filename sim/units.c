/* Quantity parsing: one suffix table per dimension, exact suffix match, nothing inferred. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_row {
  const char *suffix;
  double factor; /* multiply the number by this to get SI base units */
};

static const struct unit_row time_units[] = {
    {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {"min", 60.0}, {"h", 3600.0}, {NULL, 0}};

static const struct unit_row size_units[] = {
    {"B", 1.0},        {"kB", 1e3},        {"MB", 1e6},          {"GB", 1e9},        {"TB", 1e12},
    {"KiB", 1024.0},   {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"b", 0.125},      {"kb", 125.0},      {"Mb", 125e3},        {"Gb", 125e6},      {"Kib", 128.0},
    {"Mib", 131072.0}, {"Gib", 134217728.0}, {NULL, 0}};

static const struct unit_row bandwidth_units[] = {
    {"Bps", 1.0},        {"kBps", 1e3},        {"MBps", 1e6},          {"GBps", 1e9},   {"TBps", 1e12},
    {"KiBps", 1024.0},   {"MiBps", 1048576.0}, {"GiBps", 1073741824.0}, {"bps", 0.125}, {"kbps", 125.0},
    {"Mbps", 125e3},     {"Gbps", 125e6},      {"Tbps", 125e9},        {"Kibps", 128.0}, {"Mibps", 131072.0},
    {"Gibps", 134217728.0}, {NULL, 0}};

static const struct unit_row frequency_units[] = {
    {"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}, {NULL, 0}};

static const struct unit_row speed_units[] = {
    {"f", 1.0},      {"kf", 1e3},     {"Mf", 1e6},     {"Gf", 1e9},     {"Tf", 1e12},
    {"flops", 1.0},  {"kflops", 1e3}, {"Mflops", 1e6}, {"Gflops", 1e9}, {"Tflops", 1e12}, {NULL, 0}};

static const struct unit_row *table_for(enum icsim_dim dim)
{
  switch (dim) {
  case ICSIM_DIM_TIME: return time_units;
  case ICSIM_DIM_SIZE: return size_units;
  case ICSIM_DIM_BANDWIDTH: return bandwidth_units;
  case ICSIM_DIM_FREQUENCY: return frequency_units;
  case ICSIM_DIM_SPEED: return speed_units;
  case ICSIM_DIM_NONE: return NULL;
  }
  return NULL;
}

const char *icsim_dim_unit(enum icsim_dim dim)
{
  static const char *units[] = {"", "s", "B", "Bps", "Hz", "f"};
  return units[dim];
}

const char *icsim_dim_name(enum icsim_dim dim)
{
  static const char *names[] = {"number", "time", "size", "bandwidth", "frequency", "speed"};
  return names[dim];
}

static const char *example_for(enum icsim_dim dim)
{
  static const char *examples[] = {"42", "5us", "4KiB", "192MBps", "3.8GHz", "1Gf"};
  return examples[dim];
}

static const struct unit_row *find_suffix(const struct unit_row *t, const char *suffix)
{
  for (; t && t->suffix; t++)
    if (strcmp(t->suffix, suffix) == 0)
      return t;
  return NULL;
}

/* Length of the decimal number at the start of TEXT: [+-]digits[.digits][(e|E)[+-]digits], or 0.
 * strtod alone would also take hex ("0x10"), "inf", "nan", ".5" and "5.": none is how anyone
 * writes a machine's figure, and "0x10MBps" read as 16 MB/s is a silent surprise. */
static size_t number_length(const char *text)
{
  const char *s = text;
  if (*s == '+' || *s == '-')
    s++;
  const char *digits = s;
  while (isdigit((unsigned char)*s))
    s++;
  if (s == digits)
    return 0;
  if (*s == '.') {
    const char *frac = ++s;
    while (isdigit((unsigned char)*s))
      s++;
    if (s == frac)
      return 0;
  }
  if ((*s == 'e' || *s == 'E') && (isdigit((unsigned char)s[1]) || ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
    s += 2;
    while (isdigit((unsigned char)*s))
      s++;
  }
  return (size_t)(s - text);
}

int icsim_parse_quantity(const char *text, enum icsim_dim dim, double *out, char *err, size_t errlen)
{
  if (*text == '\0') {
    snprintf(err, errlen, "empty value; write a %s such as '%s'", icsim_dim_name(dim), example_for(dim));
    return -1;
  }
  if (isspace((unsigned char)text[0]) || isspace((unsigned char)text[strlen(text) - 1])) {
    snprintf(err, errlen, "'%s' has spaces around it; write it without, e.g. '%s'", text, example_for(dim));
    return -1;
  }
  size_t nlen = number_length(text);
  const char *end = text + nlen;
  if (nlen == 0 || (*end && (isdigit((unsigned char)*end) || *end == '.' || *end == 'x' || *end == 'X'))) {
    snprintf(err, errlen, "'%s' is not a number; write a %s in decimal, such as '%s'", text, icsim_dim_name(dim),
             example_for(dim));
    return -1;
  }
  errno = 0;
  double number = strtod(text, NULL);
  if (errno == ERANGE || !isfinite(number)) {
    snprintf(err, errlen, "'%s': the number is too large or too small to hold; write a %s such as '%s'", text,
             icsim_dim_name(dim), example_for(dim));
    return -1;
  }
  if (number == 0)
    number = 0; /* "-0" is 0 */
  char suffix[32];
  size_t n = strlen(end);
  if (n >= sizeof suffix) {
    snprintf(err, errlen, "'%s': unit too long; write a %s such as '%s'", text, icsim_dim_name(dim), example_for(dim));
    return -1;
  }
  memcpy(suffix, end, n);
  suffix[n] = '\0';

  if (dim == ICSIM_DIM_NONE) {
    if (suffix[0] != '\0') {
      snprintf(err, errlen, "'%s' takes no unit; write a plain number such as '42'", text);
      return -1;
    }
    *out = number;
    return 0;
  }
  if (suffix[0] == '\0') {
    snprintf(err, errlen, "'%s' has no unit; a %s needs one, e.g. '%s'", text, icsim_dim_name(dim), example_for(dim));
    return -1;
  }
  const struct unit_row *row = find_suffix(table_for(dim), suffix);
  if (row) {
    *out = number * row->factor;
    if (!isfinite(*out)) { /* 1e307TBps */
      snprintf(err, errlen, "'%s' is too large to hold; write a %s such as '%s'", text, icsim_dim_name(dim),
               example_for(dim));
      return -1;
    }
    return 0;
  }
  /* Say why the suffix is refused: a unit of another dimension, or an ambiguous spelling. */
  if (suffix[0] == 'K' && (strcmp(suffix + 1, "B") == 0 || strcmp(suffix + 1, "Bps") == 0)) {
    snprintf(err, errlen, "'%s' is ambiguous: write 'k%s' for 1000 or 'Ki%s' for 1024", text, suffix + 1,
             suffix + 1);
    return -1;
  }
  for (int d = ICSIM_DIM_TIME; d <= ICSIM_DIM_SPEED; d++) {
    if (d != (int)dim && find_suffix(table_for((enum icsim_dim)d), suffix)) {
      snprintf(err, errlen, "'%s' is a %s, but a %s is expected here (e.g. '%s')", text,
               icsim_dim_name((enum icsim_dim)d), icsim_dim_name(dim), example_for(dim));
      return -1;
    }
  }
  snprintf(err, errlen, "unknown unit '%s' in '%s'; a %s is written like '%s'", suffix, text, icsim_dim_name(dim),
           example_for(dim));
  return -1;
}

const char *icsim_format_quantity(double value, enum icsim_dim dim, char *buf, size_t len)
{
  static const struct {
    double scale;
    const char *prefix;
  } decimal[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}},
    subunit[] = {{1, ""}, {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}, {1e-12, "p"}};
  if (dim == ICSIM_DIM_NONE) {
    snprintf(buf, len, "%.10g", value);
    return buf;
  }
  if (value == 0) {
    snprintf(buf, len, "0%s", icsim_dim_unit(dim));
    return buf;
  }
  if (dim == ICSIM_DIM_TIME) {
    for (size_t i = 0; i < sizeof subunit / sizeof subunit[0]; i++)
      if (fabs(value) >= subunit[i].scale * 0.9999999 || i + 1 == sizeof subunit / sizeof subunit[0]) {
        snprintf(buf, len, "%.10g%ss", value / subunit[i].scale, subunit[i].prefix);
        return buf;
      }
  }
  if (dim == ICSIM_DIM_SIZE) { /* sizes read best in binary prefixes when they are exact */
    static const char *bin[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
      double s = ldexp(1.0, 10 * (4 - i));
      if (fabs(value) >= s && fmod(value, s) == 0) {
        snprintf(buf, len, "%.10g%s", value / s, bin[i]);
        return buf;
      }
    }
  }
  const char *unit = dim == ICSIM_DIM_SIZE ? "B" : icsim_dim_unit(dim);
  for (size_t i = 0; i < sizeof decimal / sizeof decimal[0]; i++)
    if (fabs(value) >= decimal[i].scale * 0.9999999 || i + 1 == sizeof decimal / sizeof decimal[0]) {
      if (dim == ICSIM_DIM_FREQUENCY)
        snprintf(buf, len, "%.10g%sHz", value / decimal[i].scale, decimal[i].prefix);
      else
        snprintf(buf, len, "%.10g%s%s", value / decimal[i].scale, decimal[i].prefix, unit);
      return buf;
    }
  return buf;
}
