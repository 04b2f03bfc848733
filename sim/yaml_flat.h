/* YAML files read as flat lists of "path/to/key" = scalar, each remembering its file:line:column.
 *
 * Nested mappings become '/'-joined keys (network: {link-bandwidth: 1Gbps} gives
 * "network/link-bandwidth"); sequence items get their index ("metrics/0/name").
 * A mapping holding a `value` key is one leaf with provenance:
 *   link-bandwidth: {value: 192MBps, origin: paper, ref: "Kuleshov 2015, test bed"}
 * and may say how far the value can plausibly lie, and what bounds it:
 *   link-latency: {value: 50ns, origin: assumed, ref: "...", range: [20ns, 200ns], range-ref: "..."}
 * Every schema check (unknown key, type, unit, range) is then done against a descriptor table.
 *
 * The reader is meant for hostile input: whatever the bytes, it returns a located message or
 * a flat list, within the limits below (README "Limits"), never a crash, a hang or unbounded
 * memory. */
#ifndef ICSIM_YAML_FLAT_H
#define ICSIM_YAML_FLAT_H

#include <stddef.h>

/* Limits of one file. Platform and case files are a few KiB; these are far above any real
 * one and low enough that parsing stays fast and small. */
#define ICSIM_YAML_MAX_BYTES (1 << 20)   /* file size */
#define ICSIM_YAML_MAX_DEPTH 32          /* nested mappings and lists */
#define ICSIM_YAML_MAX_ENTRIES 100000    /* flattened values */
#define ICSIM_YAML_MAX_KEY 255           /* length of a flattened key ("a/b/0/c") */
#define ICSIM_YAML_MAX_ALIAS_NODES 10000 /* nodes reached through aliases (*name), in total */
#define ICSIM_YAML_MAX_ANCHORS 1000      /* anchors (&name) */

struct icsim_yentry {
  char *key;
  char *value;
  char *origin; /* NULL unless given in the {value, origin} form */
  char *ref;    /* NULL unless given */
  char *range_lo, *range_hi; /* the two ends of `range: [LO, HI]` as written, NULL unless given */
  char *range_ref;           /* what bounds the range, NULL unless given */
  int line, column; /* 1-based, of the value */
  int range_line, range_column;         /* of the range, when given */
  int range_ref_line, range_ref_column; /* of range-ref, when given */
  int key_line, key_column;
};

struct icsim_yfile {
  char *path;
  struct icsim_yentry *e;
  size_t n;
  size_t *slot; /* open-addressing index of e by key: entry index + 1, 0 = free */
  size_t nslot; /* a power of two, or 0 */
};

/* Load PATH. Returns 0, or -1 with "file:line:column: problem; fix" in ERR. */
int icsim_yaml_load(const char *path, struct icsim_yfile *out, char *err, size_t errlen);
/* The same, WHAT naming the file's role in messages ("platform", "case", "sweep file"); PATH must
 * be a regular file (paths.h: never a FIFO, a device or a folder) and is one of the run's inputs. */
int icsim_yaml_load_as(const char *what, const char *path, struct icsim_yfile *out, char *err, size_t errlen);
void icsim_yaml_free(struct icsim_yfile *f);
/* Entry with exactly this key, or NULL. */
const struct icsim_yentry *icsim_yaml_get(const struct icsim_yfile *f, const char *key);

#endif
