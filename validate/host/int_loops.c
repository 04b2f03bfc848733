/* Integer loops that are not NPB's, to check nodes/int-ops-per-cycle on this machine (the rule:
 * an all-integer loop issues min(integer ALUs, dispatch width) operations per clock, 6 on Zen 5).
 *
 *   gcc -O2 -o /tmp/int_loops validate/host/int_loops.c && taskset -c 0 /tmp/int_loops
 *   taskset -c 0 build/bin/icsim calibrate-host --clock      # the core's clock, for clocks per iteration
 *
 * Operations per iteration, counted from the compiled loops (gcc 12 -O2, x86-64) the way the NPB
 * kernels count theirs (a memory operand as its own load or store, loop control as 2):
 *   mix        a[i] = (b[i] ^ (c[i] >> 3)) + i       8 (2 loads, shift, xor, add, store, loop)
 *   histogram  h[s[i]]++ over 256 counters            6 (load, load, add, store, loop)
 *   gather     d[i] = src[idx[i] & 1023] + 1          7 (load, and, load, add, store, loop)
 *   count      n += (v >= lo) & (v < hi)              10 (load, 2 compares, 2 sets, widen, and, add, loop)
 * Prints nanoseconds per iteration; at the clock measured beside it, clocks per iteration. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { N = 1 << 14, R = 20000 };

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noipa)) static void mix(uint32_t *a, const uint32_t *b, const uint32_t *c, long n)
{
  for (long i = 0; i < n; i++)
    a[i] = (b[i] ^ (c[i] >> 3)) + (uint32_t)i;
}

__attribute__((noipa)) static void histogram(const uint8_t *s, long n, uint32_t *h)
{
  for (long i = 0; i < n; i++)
    h[s[i]]++;
}

__attribute__((noipa)) static void gather(int *d, const int *src, const int *idx, long n)
{
  for (long i = 0; i < n; i++)
    d[i] = src[idx[i] & 1023] + 1;
}

__attribute__((noipa)) static long count(const int32_t *a, long n, int32_t lo, int32_t hi)
{
  long c = 0;
  for (long i = 0; i < n; i++) {
    int32_t v = a[i];
    c += (v >= lo) & (v < hi);
  }
  return c;
}

int main(void)
{
  static uint32_t a[N], b[N], c[N], h[256];
  static uint8_t s[N];
  static int d[N], src[1024], idx[N];
  for (int i = 0; i < N; i++) {
    b[i] = (uint32_t)rand();
    c[i] = (uint32_t)rand();
    s[i] = (uint8_t)rand();
    idx[i] = rand();
  }
  for (int i = 0; i < 1024; i++)
    src[i] = i;
  long sink = 0;
  double t = now();
  for (int r = 0; r < R; r++)
    mix(a, b, c, N);
  printf("mix       %.4f ns per iteration (8 operations)\n", (now() - t) / R / N * 1e9);
  t = now();
  for (int r = 0; r < R; r++)
    histogram(s, N, h);
  printf("histogram %.4f ns per iteration (6 operations)\n", (now() - t) / R / N * 1e9);
  t = now();
  for (int r = 0; r < R; r++)
    gather(d, src, idx, N);
  printf("gather    %.4f ns per iteration (7 operations)\n", (now() - t) / R / N * 1e9);
  t = now();
  for (int r = 0; r < R; r++)
    sink += count((const int32_t *)b, N, 1000, 1 << 30);
  printf("count     %.4f ns per iteration (10 operations)\n", (now() - t) / R / N * 1e9);
  return (int)(sink & 0) + (int)(a[1] & 0) + (int)(h[0] & 0) + (d[0] & 0);
}
