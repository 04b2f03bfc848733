/* The NPB kernels' phase hooks for plain smpicc builds (bench/run's skeleton rows), so that plain
 * SMPI can run the same skeleton as `icsim run --skeleton`: the loops skipped, each declared phase
 * charged as simulated time. Plain SMPI has no compute model, so a phase costs its operations at
 * the bench star's 1 GHz, one per clock (bench/star-*.yaml: clock 1GHz): the communication, which is
 * what the row measures, is the same on both sides; the compute charge may differ a little (icsim
 * also weighs bytes and latencies), so the row's "same output" column says no. */
#include <smpi/smpi.h>

static double charged_s; /* per rank: SMPI privatizes the program's globals, this file's included */

void icsim_phase_begin(void) {}

void icsim_phase_end(double ops, double bytes)
{
  (void)bytes;
  double s = ops / 1e9;
  charged_s += s;
  smpi_execute(s);
}

void icsim_phase_end_work(double ops, double bytes, double accesses, double working_set, double access_set,
                          double chain, double chain_mul, double chain_divide, double mispredicts, double stride,
                          double stride_stores, double paths, double branch_chain, double integer,
                          double store_fills, double chain_int, double chain_int_mul, double moves)
{
  (void)accesses, (void)working_set, (void)access_set, (void)chain, (void)chain_mul, (void)chain_divide;
  (void)mispredicts, (void)stride, (void)stride_stores, (void)paths, (void)branch_chain, (void)integer;
  (void)store_fills, (void)chain_int, (void)chain_int_mul, (void)moves;
  icsim_phase_end(ops, bytes);
}

double icsim_phase_seconds(void) { return charged_s; }

int icsim_phase_modeled(void) { return 1; }
