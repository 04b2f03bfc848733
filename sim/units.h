/* Strict parsing of quantities written SimGrid-style ("192MBps", "5us", "3.8GHz", "1Gf").
 *
 * Every quantity has a dimension; a number whose unit belongs to another dimension
 * ("192MB" given for a bandwidth) is rejected with a hint instead of being guessed.
 * Values are returned in SI base units: seconds, bytes, bytes/s, Hz, flop/s. */
#ifndef ICSIM_UNITS_H
#define ICSIM_UNITS_H

#include <stddef.h>

enum icsim_dim {
  ICSIM_DIM_NONE = 0, /* plain number, no unit allowed */
  ICSIM_DIM_TIME,      /* s */
  ICSIM_DIM_SIZE,      /* B */
  ICSIM_DIM_BANDWIDTH, /* B/s */
  ICSIM_DIM_FREQUENCY, /* Hz */
  ICSIM_DIM_SPEED,     /* flop/s */
};

/* Canonical unit printed for a dimension ("s", "B", "Bps", "Hz", "f" or ""). */
const char *icsim_dim_unit(enum icsim_dim dim);
/* Human name of a dimension ("time", "bandwidth", ...). */
const char *icsim_dim_name(enum icsim_dim dim);

/* Parse TEXT as a quantity of dimension DIM into *OUT (SI base units).
 * Returns 0 on success, -1 with a message in ERR (what is wrong and how to write it). */
int icsim_parse_quantity(const char *text, enum icsim_dim dim, double *out, char *err, size_t errlen);

/* Format VALUE of dimension DIM with a readable prefix ("192MBps", "6us"), into BUF. */
const char *icsim_format_quantity(double value, enum icsim_dim dim, char *buf, size_t len);

#endif
