/* libicsim_clock.so, preloaded into the simulation when host timing is off.
 *
 * SMPI times the code between every two MPI calls with the thread's CPU clock (smpi_bench_begin
 * and smpi_bench_end around each PMPI call), even when that time is thrown away
 * (smpi/simulate-computation:no, icsim's `--host-timing off`). Reading a thread CPU clock is a
 * real system call (no vDSO path), and on a virtual machine a slow one: profiled here, it was 30%
 * of an all-to-all's wall time at 256 ranks. With host timing off nothing reads the result, so
 * the thread CPU clock answers 0 at once; every other clock goes to the C library. Programs built
 * with icsimcc read SMPI's simulated clocks, not this one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int (*libc_clock_gettime)(clockid_t, struct timespec *);
static int frozen;

__attribute__((constructor)) static void clock_shim_init(void)
{
  libc_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  const char *h = getenv("ICSIM_HOST_TIMING");
  frozen = h && !strcmp(h, "off");
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
  if (frozen && id == CLOCK_THREAD_CPUTIME_ID) {
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
  }
  if (!libc_clock_gettime) /* called before the constructor ran */
    clock_shim_init();
  return libc_clock_gettime(id, ts);
}
