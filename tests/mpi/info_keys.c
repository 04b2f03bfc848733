/* Info keys are numbered in the order they were first set (what MPICH and Open MPI do, and what
 * programs that read hints back by number expect): 40 keys set in a scrambled order, one set again
 * (keeps its number), three deleted (the later ones move up), a duplicate (same numbering, then
 * its own), a key buffer only as long as the keys (MPI_Info_get_nthkey writes the key and its
 * terminator, no more). SMPI 3.32 numbers them by its hash map: the layer keeps the order
 * (sim/mpi/info_order.c). */
#include "suite.h"

#define NKEYS 40

static void key_name(char *buf, int i) { sprintf(buf, "hint_%d", (i * 17) % 101); }

static void expect_order(MPI_Info info, const int *order, int n, const char *what)
{
  int nkeys = -1;
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == n, "%s: %d keys, expected %d", what, nkeys, n);
  for (int j = 0; j < n && j < nkeys; j++) {
    struct {
      char key[16];
      char guard[8];
    } b;
    memset(b.guard, 0x5a, sizeof b.guard);
    char want[16];
    key_name(want, order[j]);
    MPI_OK(MPI_Info_get_nthkey(info, j, b.key));
    CHECK(strcmp(b.key, want) == 0, "%s: key %d is %s, expected %s", what, j, b.key, want);
    int intact = 1;
    for (size_t g = 0; g < sizeof b.guard; g++)
      intact &= b.guard[g] == 0x5a;
    CHECK(intact, "%s: MPI_Info_get_nthkey wrote past the key's terminator", what);
  }
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  suite_step("keys numbered in the order they were set");
  MPI_Info info, copy;
  MPI_OK(MPI_Info_create(&info));
  int order[NKEYS], n = 0;
  char k[16], v[16];
  for (int i = 0; i < NKEYS; i++) {
    key_name(k, i);
    sprintf(v, "%d", i);
    MPI_OK(MPI_Info_set(info, k, v));
    order[n++] = i;
  }
  key_name(k, 7);
  MPI_OK(MPI_Info_set(info, k, "again")); /* a new value, the same number */
  expect_order(info, order, n, "after setting");

  suite_step("deleted keys leave no gap");
  int gone[3] = {0, 13, 39};
  for (int d = 0; d < 3; d++) {
    key_name(k, gone[d]);
    MPI_OK(MPI_Info_delete(info, k));
    for (int j = 0; j < n; j++)
      if (order[j] == gone[d]) {
        memmove(&order[j], &order[j + 1], sizeof *order * (size_t)(n - j - 1));
        n--;
        break;
      }
  }
  expect_order(info, order, n, "after deleting");

  suite_step("a duplicate keeps the numbering, then goes its own way");
  MPI_OK(MPI_Info_dup(info, &copy));
  expect_order(copy, order, n, "duplicate");
  key_name(k, 0);
  MPI_OK(MPI_Info_set(copy, k, "back"));
  order[n] = 0;
  expect_order(copy, order, n + 1, "duplicate with a key added");
  expect_order(info, order, n, "original after its duplicate changed");
  int flag = 0;
  char val[32];
  key_name(k, 7);
  MPI_OK(MPI_Info_get(copy, k, sizeof val - 1, val, &flag));
  CHECK(flag && strcmp(val, "again") == 0, "duplicate: value of key 7 is %s", flag ? val : "(none)");
  MPI_OK(MPI_Info_free(&copy));
  MPI_OK(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "MPI_Info_free did not null the handles");
  return suite_finish();
}
