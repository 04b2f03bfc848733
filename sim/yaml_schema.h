/* Checking a flat YAML file (yaml_flat.h) against a schema of descriptor rows.
 *
 * A schema is a table of icsim_param_desc rows whose keys are patterns: '#' stands for a list
 * index ("metrics/#/name"). A row's default says whether it must be given: NULL = required (in
 * every entry of the list it sits in; a key ending in "/#" asks for a non-empty list), "" =
 * optional without a value. Every file kind of the tree (validation cases, sweeps) is checked
 * this way, so that all of them say the same things about the same mistakes: the location, what
 * is wrong and the fix (the closest known key, where a key belongs, a list written as a value). */
#ifndef ICSIM_YAML_SCHEMA_H
#define ICSIM_YAML_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

#include "params.h"
#include "yaml_flat.h"

struct icsim_schema {
  const struct icsim_param_desc *rows;
  size_t n;
};

/* Every key known, every typed value parsed and within its bounds, every required key given.
 * Returns 0, or -1 with "file:line:column: problem; fix" in ERR. */
int icsim_schema_check(const struct icsim_schema *s, const struct icsim_yfile *y, char *err, size_t errlen);
/* "metrics/3/name" matches "metrics/#/name". */
int icsim_schema_key_matches(const char *key, const char *pattern);
/* The row KEY falls under, or NULL. */
const struct icsim_param_desc *icsim_schema_row(const struct icsim_schema *s, const char *key);
/* Some key of Y matches PATTERN. */
int icsim_schema_present(const struct icsim_yfile *y, const char *pattern);
/* The schema as a Markdown table: key, type, default, meaning (for the READMEs). */
void icsim_schema_markdown(const struct icsim_schema *s, FILE *f);

#endif
