/* NPB IS: parallel integer sort (bucket sort of keys drawn as the sum of four uniform numbers).
 * Each iteration ranks all keys: keys are counted into buckets, bucket totals are summed over
 * processes, buckets are dealt to processes in contiguous ranges of about equal key counts,
 * keys travel with an all-to-all, and each process ranks the keys of its range. Partial
 * verification checks five keys' ranks per iteration, full verification the final order
 * (NPB 3 problem definition, RNR-94-007 section 2.2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npb.h"

#define MAX_ITERATIONS 10
#define TEST_ARRAY_SIZE 5

struct is_class {
  char cls;
  int total_keys_log2, max_key_log2, buckets_log2;
  long test_index[TEST_ARRAY_SIZE], test_rank[TEST_ARRAY_SIZE];
};

static const struct is_class classes[] = {
    {'S', 16, 11, 9, {48427, 17148, 23627, 62548, 4431}, {0, 18, 346, 64917, 65463}},
    {'W', 20, 16, 10, {357773, 934767, 875723, 898999, 404505}, {1249, 11698, 1039987, 1043896, 1048018}},
    {'A', 23, 19, 10, {2112377, 662041, 5336171, 3642833, 4250760}, {104, 17523, 123928, 8288932, 8388264}},
    {'B', 25, 21, 10, {41869, 812306, 5102857, 18232239, 26860214}, {33422937, 10244, 59149, 33135281, 99}},
    {'C', 27, 23, 10, {44172927, 72999161, 74326391, 129606274, 21736814},
     {61147, 882988, 266290, 133997595, 133525895}},
};

static const struct is_class *C;
static long total_keys, keys_per_proc, max_key, nbuckets;
static int shift;
static int *key_array, *key_buff1, *key_buff2;
static long *bucket_size, *bucket_total, *bucket_ptr;
static int *send_count, *recv_count, *send_displ, *recv_displ;
static long key_min, key_max, lesser_keys, received;
static int passed;

/* Expected rank shift of test key I at ITERATION, per class (the keys planted each iteration
 * move the test keys' ranks). */
static long expected_rank(int i, int iteration)
{
  long r = C->test_rank[i];
  switch (C->cls) {
  case 'S': return i <= 2 ? r + iteration : r - iteration;
  case 'W': return i < 2 ? r + (iteration - 2) : r - iteration;
  case 'A': return i <= 2 ? r + (iteration - 1) : r - (iteration - 1);
  case 'C': return i <= 2 ? r + iteration : r - iteration;
  default: return (i == 1 || i == 2 || i == 4) ? r + iteration : r - iteration;
  }
}

/* Keys: k/4 (r1+r2+r3+r4) with k = max_key, four generator steps per key; each process jumps
 * to its first key. */
static void create_seq(struct npb_run *run)
{
  const double a = 1220703125.0;
  double seed = 314159265.0;
  randlc(&seed, npb_pow46(a, 4LL * keys_per_proc * run->rank));
  double k = (double)(max_key / 4);
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton)
    for (long i = 0; i < keys_per_proc; i++) {
      double x = randlc(&seed, a);
      x += randlc(&seed, a);
      x += randlc(&seed, a);
      x += randlc(&seed, a);
      key_array[i] = (int)(k * x);
    }
  ICSIM_PHASE_END(20.0 * keys_per_proc, 4.0 * keys_per_proc);
}

static void rank_keys(struct npb_run *run, int iteration)
{
  long my_first = keys_per_proc * run->rank;
  if (run->rank == 0 && !run->skeleton) {
    key_array[iteration] = iteration;
    key_array[iteration + MAX_ITERATIONS] = (int)(max_key - iteration);
  }
  /* test keys ride along with the bucket totals (zero from processes that do not hold them) */
  for (int i = 0; i < TEST_ARRAY_SIZE; i++) {
    long idx = C->test_index[i] - my_first;
    bucket_size[nbuckets + i] = (idx >= 0 && idx < keys_per_proc && !run->skeleton) ? key_array[idx] : 0;
  }

  /* Two loops one after the other, each its own phase: their limits differ (the counting pass
   * issues, the scatter waits for lines), and the model takes the larger of a phase's limits. */
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton) {
    memset(bucket_size, 0, nbuckets * sizeof *bucket_size);
    for (long i = 0; i < keys_per_proc; i++)
      bucket_size[key_array[i] >> shift]++;
    bucket_ptr[0] = 0;
    for (long b = 1; b < nbuckets; b++)
      bucket_ptr[b] = bucket_ptr[b - 1] + bucket_size[b - 1];
  }
  /* Counting pass, per key 8 operations counted from the compiled loop (gcc -O2, x86-64; a memory
   * operand as its own load or store, loop control as 2): load the key, shift, widen the int index
   * to 64 bits, load, add and store its bucket's count; the prefix over the buckets 4 per bucket.
   * All integer. Streamed: the keys (4 B). The count updates are random accesses into the 8-byte
   * bucket counters. */
  ICSIM_PHASE_END_WORK(.ops = 8.0 * keys_per_proc + 4.0 * nbuckets, .bytes = 4.0 * keys_per_proc,
                       .accesses = keys_per_proc, .working_set = 4.0 * keys_per_proc, .access_set = 8.0 * nbuckets,
                       .integer = 1);
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton)
    for (long i = 0; i < keys_per_proc; i++) {
      int key = key_array[i];
      key_buff1[bucket_ptr[key >> shift]++] = key;
    }
  /* Scatter pass, per key 11 operations from the compiled loop: load the key, copy it (a register
   * copy: .moves), shift,
   * widen, form the pointer's address, load the pointer, add, store it, store the key. All
   * integer. Streamed: the keys read, their copy written (8 B). The copy is written through
   * nbuckets streams at once, each moving on a line every 16 keys that land in its bucket: far
   * more streams than a prefetcher follows, so each new line of the copy is fetched on its own
   * (the store's read for ownership: 4 B a key, 64 B lines). Where from: a line of the copy was
   * last touched one iteration ago, and since then the keys, the copy and the received keys (12 B
   * a key) have passed through the caches, so the fills find the copy where a set that size would
   * be (the access set). The pointers' updates hit the L1 (8 B a bucket). Working set: the keys
   * and their copy. */
  ICSIM_PHASE_END_WORK(.ops = 11.0 * keys_per_proc, .bytes = 8.0 * keys_per_proc,
                       .store_fills = 4.0 * keys_per_proc / 64.0, .working_set = 8.0 * keys_per_proc,
                       .access_set = 12.0 * keys_per_proc, .integer = 1, .moves = keys_per_proc);

  MPI_Allreduce(bucket_size, bucket_total, nbuckets + TEST_ARRAY_SIZE, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

  /* deal buckets: process j gets the buckets through which the running total passes (j+1)
   * times the keys per process; the last process takes the rest */
  long acc = 0, local_acc = 0;
  int j = 0;
  long *first_bucket_of = malloc((size_t)(run->nprocs + 1) * sizeof *first_bucket_of);
  first_bucket_of[0] = 0;
  memset(send_count, 0, run->nprocs * sizeof *send_count);
  if (run->skeleton) {
    /* no keys were drawn: the dealing balances the keys, and every process draws from the
     * same distribution, so each sends about an equal share to every process. (There are at least
     * as many buckets as processes: main() raises the count to one per process beyond the class's
     * 2^10. Equal shares are the skeleton's approximation: a full run's shares vary with its
     * buckets, by about +-50% at 256 processes of class B, and unequal sizes cost SimGrid far more:
     * README.md, simulation speed.) */
    for (int p = 0; p < run->nprocs; p++) {
      send_count[p] = (int)(keys_per_proc / run->nprocs);
      first_bucket_of[p + 1] = nbuckets * (p + 1) / run->nprocs;
    }
    j = run->nprocs;
  }
  for (long b = 0; b < nbuckets && !run->skeleton; b++) {
    acc += bucket_total[b];
    local_acc += bucket_size[b];
    if ((acc >= (j + 1) * keys_per_proc && j < run->nprocs - 1) || b == nbuckets - 1) {
      send_count[j] = (int)local_acc;
      local_acc = 0;
      first_bucket_of[++j] = b + 1;
    }
  }
  for (; j < run->nprocs; j++)
    first_bucket_of[j + 1] = nbuckets;
  send_displ[0] = 0;
  for (int p = 1; p < run->nprocs; p++)
    send_displ[p] = send_displ[p - 1] + send_count[p - 1];
  MPI_Alltoall(send_count, 1, MPI_INT, recv_count, 1, MPI_INT, MPI_COMM_WORLD);
  recv_displ[0] = 0;
  for (int p = 1; p < run->nprocs; p++)
    recv_displ[p] = recv_displ[p - 1] + recv_count[p - 1];
  received = recv_displ[run->nprocs - 1] + recv_count[run->nprocs - 1];
  MPI_Alltoallv(key_buff1, send_count, send_displ, MPI_INT, key_buff2, recv_count, recv_displ, MPI_INT,
                MPI_COMM_WORLD);

  /* my key range and the number of keys below it */
  key_min = first_bucket_of[run->rank] << shift;
  key_max = (first_bucket_of[run->rank + 1] << shift) - 1;
  lesser_keys = 0;
  for (long b = 0; !run->skeleton && b < first_bucket_of[run->rank]; b++)
    lesser_keys += bucket_total[b];
  free(first_bucket_of);

  long range = key_max - key_min + 1;
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton && range > 0) {
    memset(key_buff1, 0, range * sizeof *key_buff1);
    for (long i = 0; i < received; i++)
      key_buff1[key_buff2[i] - key_min]++;
    for (long i = 1; i < range; i++)
      key_buff1[i] += key_buff1[i - 1];
  }
  /* Count: per received key 7 operations (load it, subtract, load, add and store its counter,
   * loop control 2), a random access into the range's counters; prefix sum: per counter 5 (load,
   * add, store, loop control 2), each add waiting for the previous one (an integer chain of one
   * clock: not a floating-point chain). All integer. Streamed: received keys read (4 B), counters
   * cleared, read and written (12 B). */
  ICSIM_PHASE_END_WORK(.ops = 7.0 * received + 5.0 * range, .bytes = 4.0 * received + 12.0 * range,
                       .accesses = received, .working_set = 4.0 * received + 4.0 * range, .access_set = 4.0 * range,
                       .integer = 1);

  if (run->skeleton)
    return;
  for (int i = 0; i < TEST_ARRAY_SIZE; i++) {
    long k = bucket_total[nbuckets + i];
    if (k >= key_min && k <= key_max) {
      long rank = lesser_keys + (k > key_min ? key_buff1[k - 1 - key_min] : 0);
      if (k > 0 && k <= total_keys - 1) {
        if (rank == expected_rank(i, iteration))
          passed++;
        else
          printf("IS: failed partial verification: iteration %d, test key %d (rank %ld, expected %ld)\n",
                 iteration, i, rank, expected_rank(i, iteration));
      }
    }
  }
}

/* Full verification: place the received keys in order by their ranks, check the order
 * locally and across the boundary with the next process. */
static void full_verify(struct npb_run *run)
{
  for (long i = 0; i < received; i++) {
    int key = key_buff2[i];
    key_array[--key_buff1[key - key_min]] = key;
  }
  long errors = 0;
  for (long i = 1; i < received; i++)
    if (key_array[i - 1] > key_array[i])
      errors++;
  int last = received > 0 ? key_array[received - 1] : -1, prev = -1;
  if (run->rank < run->nprocs - 1)
    MPI_Send(&last, 1, MPI_INT, run->rank + 1, 1000, MPI_COMM_WORLD);
  if (run->rank > 0) {
    MPI_Recv(&prev, 1, MPI_INT, run->rank - 1, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (received > 0 && prev > key_array[0])
      errors++;
  }
  if (errors)
    printf("IS: full verification: %ld keys out of order on process %d\n", errors, run->rank);
  else
    passed++;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct npb_run run;
  int rc = npb_start(&run, "IS", argc, argv, "SWABC");
  if (rc) {
    MPI_Finalize();
    return rc & 0xff;
  }
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
    if (classes[i].cls == run.cls)
      C = &classes[i];
  total_keys = 1L << C->total_keys_log2;
  max_key = 1L << C->max_key_log2;
  /* Buckets are dealt to processes, so there must be at least as many: above the class's 2^10,
   * one bucket per process (NPB's own MPI code stops at 1024 processes; the ranking is the same
   * whatever the bucket count, only the dealing is finer). */
  int buckets_log2 = C->buckets_log2;
  while ((1L << buckets_log2) < run.nprocs && buckets_log2 < C->max_key_log2)
    buckets_log2++;
  nbuckets = 1L << buckets_log2;
  shift = C->max_key_log2 - buckets_log2;
  keys_per_proc = total_keys / run.nprocs;
  if ((rc = npb_check_procs(&run, (int)(nbuckets < (1L << 20) ? nbuckets : 1L << 20), "buckets are dealt to processes")))
    goto done;

  /* received keys: about keys_per_proc, with room for the skew of the key distribution */
  long buff2 = run.nprocs == 1 ? keys_per_proc : keys_per_proc * 5 / 2 + 1024;
  key_array = npb_alloc(&run, (buff2 > keys_per_proc ? buff2 : keys_per_proc) * sizeof(int), "key_array");
  key_buff1 = npb_alloc(&run, (max_key > keys_per_proc ? max_key : keys_per_proc) * sizeof(int), "key_buff1");
  key_buff2 = npb_alloc(&run, buff2 * sizeof(int), "key_buff2");
  bucket_size = calloc(nbuckets + TEST_ARRAY_SIZE, sizeof(long));
  bucket_total = calloc(nbuckets + TEST_ARRAY_SIZE, sizeof(long));
  bucket_ptr = calloc(nbuckets, sizeof(long));
  send_count = calloc(run.nprocs, sizeof(int));
  recv_count = calloc(run.nprocs, sizeof(int));
  send_displ = calloc(run.nprocs, sizeof(int));
  recv_displ = calloc(run.nprocs, sizeof(int));

  if (run.rank == 0)
    printf("\n NAS Parallel Benchmarks (icsim implementation) - IS Benchmark\n Size:  %ld  (class %c)\n"
           " Iterations:  %d\n Number of processes:  %d\n",
           total_keys, run.cls, MAX_ITERATIONS, run.nprocs);
  create_seq(&run);
  /* one untimed iteration brings every page and table in, as the original does */
  rank_keys(&run, 1);
  passed = 0;

  npb_timer_start(&run);
  for (int it = 1; it <= MAX_ITERATIONS; it++) {
    if (run.rank == 0 && !run.skeleton)
      printf("        %d\n", it);
    rank_keys(&run, it);
  }
  npb_timer_stop(&run);

  int verified = -1;
  if (!run.skeleton) {
    full_verify(&run);
    int total_passed = 0;
    MPI_Reduce(&passed, &total_passed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    verified = total_passed == TEST_ARRAY_SIZE * MAX_ITERATIONS + run.nprocs;
  }
  char size[32];
  snprintf(size, sizeof size, "%ld", total_keys);
  npb_report(&run, size, MAX_ITERATIONS, (double)MAX_ITERATIONS * total_keys / run.time_s / 1e6, "keys ranked",
             verified);
  npb_free(&run, key_array);
  npb_free(&run, key_buff1);
  npb_free(&run, key_buff2);
done:
  MPI_Finalize();
  return rc;
}
