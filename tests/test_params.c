#include <criterion/criterion.h>
#include <string.h>

#include "params.h"

struct demo {
  double bw_Bps;
  int queues;
  bool on;
  int mode;
};

static const struct icsim_param_desc table[] = {
    {"demo/link-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e3, 1e12, "192MBps", "paper", "link", NULL,
     offsetof(struct demo, bw_Bps)},
    {"demo/queues", ICSIM_P_INT, 0, 1, 64, "8", "paper", "queues", NULL, offsetof(struct demo, queues)},
    {"demo/enabled", ICSIM_P_BOOL, 0, 0, 0, "true", "assumed", "switch", NULL, offsetof(struct demo, on)},
    {"demo/mode", ICSIM_P_ENUM, 0, 0, 0, "fast", "assumed", "mode", "slow|fast", offsetof(struct demo, mode)},
    {"demo/required", ICSIM_P_STRING, 0, 0, 0, NULL, "spec", "must be given", NULL, ICSIM_NO_FIELD},
};

Test(params, defaults_fill_the_struct)
{
  struct icsim_params ps = {0};
  icsim_params_add_table(&ps, table, 5);
  struct demo d;
  icsim_params_fill(&ps, table, 5, &d);
  cr_assert_float_eq(d.bw_Bps, 192e6, 1e-3);
  cr_assert_eq(d.queues, 8);
  cr_assert(d.on);
  cr_assert_eq(d.mode, 1);
  cr_assert_str_eq(icsim_params_missing(&ps), "demo/required");
  icsim_params_free(&ps);
}

Test(params, set_checks_type_unit_and_range)
{
  struct icsim_params ps = {0};
  char err[256];
  icsim_params_add_table(&ps, table, 5);
  cr_assert_eq(icsim_params_set(&ps, "demo/queues", "16", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert_float_eq(icsim_param_num(&ps, "demo/queues"), 16, 0);
  cr_assert_neq(icsim_params_set(&ps, "demo/queues", "65", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "out of range"), "%s", err);
  cr_assert_neq(icsim_params_set(&ps, "demo/queues", "8.5", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "whole number"), "%s", err);
  cr_assert_neq(icsim_params_set(&ps, "demo/link-bandwidth", "1GB", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "bandwidth"), "%s", err);
  cr_assert_neq(icsim_params_set(&ps, "demo/mode", "medium", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "slow|fast"), "%s", err);
  cr_assert_neq(icsim_params_set(&ps, "demo/enabled", "maybe", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert_neq(icsim_params_set(&ps, "demo/queue", "8", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "did you mean 'demo/queues'"), "%s", err);
  /* origin and place are remembered for describe */
  cr_assert_eq(icsim_params_set(&ps, "demo/link-bandwidth", "1Gbps", "spec", "f.yaml:3", NULL, err, sizeof err), 0);
  struct icsim_pval *pv = icsim_params_find(&ps, "demo/link-bandwidth");
  cr_assert_str_eq(pv->origin, "spec");
  cr_assert_str_eq(pv->where, "f.yaml:3");
  icsim_params_free(&ps);
}

Test(params, edit_distance)
{
  cr_assert_eq(icsim_edit_distance("kitten", "sitting"), 3);
  cr_assert_eq(icsim_edit_distance("", "abc"), 3);
  cr_assert_eq(icsim_edit_distance("same", "same"), 0);
}

Test(params, whole_numbers_are_plain_digits)
{
  const struct icsim_param_desc *q = &table[1]; /* demo/queues, 1..64 */
  double v;
  char err[256];
  const char *bad[] = {" 4", "4 ", "+4", "0x10", "4.0", "1e1", "", "-", "4four"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_neq(icsim_param_parse(q, bad[i], &v, err, sizeof err), 0, "'%s' accepted", bad[i]);
    cr_assert(strstr(err, "not a whole number"), "'%s': %s", bad[i], err);
  }
  /* far past any bound: out of range, not wrapped round to something that fits */
  cr_assert_neq(icsim_param_parse(q, "18446744073709551624", &v, err, sizeof err), 0);
  cr_assert(strstr(err, "out of range; allowed is 1 to 64"), "%s", err);
  cr_assert_neq(icsim_param_parse(q, "-9999999999999999999", &v, err, sizeof err), 0);
  cr_assert(strstr(err, "out of range"), "%s", err);
  cr_assert_eq(icsim_param_parse(q, "64", &v, err, sizeof err), 0, "%s", err);
  cr_assert_eq(v, 64);
}

Test(params, empty_values_are_refused)
{
  struct icsim_params ps = {0};
  icsim_params_add_table(&ps, table, 5);
  char err[256];
  cr_assert_neq(icsim_params_set(&ps, "demo/required", "", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert(strstr(err, "demo/required: empty value"), "%s", err);
  cr_assert_neq(icsim_params_set(&ps, "demo/link-bandwidth", "", NULL, "--set", NULL, err, sizeof err), 0);
  cr_assert_str_eq(icsim_params_missing(&ps), "demo/required"); /* still not given */
  icsim_params_free(&ps);
}
