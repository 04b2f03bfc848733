/* NPB FT: time integration of a 3-D diffusion equation by FFT. The initial field is random;
 * it is transformed once, then each step multiplies the spectrum by exp(-4 alpha pi^2 |k|^2 t),
 * transforms back and takes a checksum of 1024 elements (NPB 3 problem definition, RNR-94-007
 * section 2.6). Parallel forms, chosen as NPB 3's FT chooses them:
 *  - up to nz processes (1D layout): slabs along z for the x and y transforms, an all-to-all
 *    transpose to slabs along y for the z transform and the evolution;
 *  - above nz (2D layout, pencils): an np1 x np2 grid with np1 = nz and np2 = np / nz (NPB's
 *    default grid). The x transform runs on x pencils, an all-to-all among the np1 processes of
 *    a grid column turns them into y pencils, one among the np2 processes of a grid row into z
 *    pencils, where the z transform and the evolution run. Backward, the same in reverse. */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npb.h"

#define ALPHA 1.0e-6
#define FT_SEED 314159265.0
#define A_MULT 1220703125.0

static int nx, ny, nz, niter, zloc, yloc;
static struct npb_run run;
static double complex *u0, *u1, *sendbuf, *recvbuf, *line;
static double *twiddle;
static size_t npts; /* grid points on this process, in every layout */

/* 1D layout 1: [z_local][y][x]; layout 2: [y_local][z][x] */
#define L1(a, z, y, x) ((a)[((size_t)(z) * ny + (size_t)(y)) * nx + (size_t)(x)])
#define L2(a, y, z, x) ((a)[((size_t)(y) * nz + (size_t)(z)) * nx + (size_t)(x)])

/* 2D layout (pencils): this process is (me1, me2) of the np1 x np2 grid, me1 = rank / np2,
 * me2 = rank mod np2 (NPB's numbering). Its pencils, fastest index last:
 *   P1 [z: zloc from z_lo][y: y1loc from y1_lo][x: whole]  x transform
 *   P2 [z: zloc from z_lo][x: xloc from x_lo][y: whole]    y transform
 *   P3 [y: y3loc from y3_lo][x: xloc from x_lo][z: whole]  z transform, evolution
 * zloc = nz / np2, y1loc = ny / np1, xloc = nx / np1, y3loc = ny / np2. */
static int pencils, np1, np2, me1, me2, xloc, y1loc, y3loc, x_lo, y1_lo, y3_lo, z_lo;
static MPI_Comm col_comm; /* the np1 processes sharing me2 (ranked by me1): x <-> y */
static MPI_Comm row_comm; /* the np2 processes sharing me1 (ranked by me2): y <-> z */

static double log2i(int n) { return log2((double)n); }

/* Points of the grid on this process (any layout). */
static double pts_local(void) { return (double)npts; }

/* In-place radix-2 FFT of N points; SIGN = -1 forward, +1 backward, unnormalised. */
static void fft1(double complex *a, int n, int sign)
{
  for (int i = 1, j = 0; i < n; i++) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      double complex t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    double ang = sign * 2 * M_PI / len;
    double complex wl = cos(ang) + I * sin(ang);
    for (int i = 0; i < n; i += len) {
      double complex w = 1;
      for (int k = 0; k < len / 2; k++) {
        double complex x = a[i + k], y = a[i + k + len / 2] * w;
        a[i + k] = x + y;
        a[i + k + len / 2] = x - y;
        w *= wl;
      }
    }
  }
}

/* Transform every line of length N whose elements are STRIDE apart, the lines starting at
 * BASE + l * lstride for l < nlines (groups of nlines repeated ngroups times gstride apart). */
static void fft_lines(double complex *base, int n, size_t stride, int nlines, size_t lstride, int ngroups,
                      size_t gstride, int sign)
{
  double points = (double)n * nlines * ngroups;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int g = 0; g < ngroups; g++)
      for (int l = 0; l < nlines; l++) {
        double complex *p = base + g * gstride + l * lstride;
        for (int i = 0; i < n; i++)
          line[i] = p[i * stride];
        fft1(line, n, sign);
        for (int i = 0; i < n; i++)
          p[i * stride] = line[i];
      }
  /* Counted per line of n points, loop control as 2: (n/2) log2 n butterflies of 49 operations,
   * counted from the compiled loop (gcc -O2, x86-64 SSE2): 4 loads (y's point twice: the C99
   * complex multiply computes a * w as a packed product and again in scalars for its NaN test),
   * 2 stores, 10 multiplies and 8 adds (that product twice, the twiddle step w *= wl, x +- y),
   * 4 shuffles pairing the parts, 12 register moves (movapd xmm, xmm: .moves, which a core with
   * move elimination completes at renaming), 2 NaN tests and their branches (4), loop control 5
   * (the index, two pointers, compare-and-branch); the C-level count (34) missed the second
   * product and the moves. The bit reversal, 14 per
   * point (about one turn of the inner loop of 4, the final xor, the compare, half a swap of 4,
   * loop control); the copy in and out of the line buffer, 8 per point; cos and sin of each stage,
   * 40. The twiddle step is a chain: a multiply then an add per butterfly. Each point read and
   * written once (32 B). Lines whose points are STRIDE apart (2 KiB and more) touch one cache line
   * per point, twice (the gather's load, the scatter's store): strided accesses into the plane the
   * lines sweep (n x stride points, n lines 16 x STRIDE bytes apart; the next 3 lines reuse them if
   * they stay cached). */
  double bfly = points / 2 * log2i(n), lines = (double)nlines * ngroups;
  double plane = 16.0 * n * (double)stride;
  ICSIM_PHASE_END_WORK(.ops = 49.0 * bfly + 22.0 * points + 40.0 * log2i(n) * lines, .bytes = 32.0 * points,
                       .accesses = stride > 1 ? 2.0 * points : 0, .working_set = 16.0 * pts_local(),
                       .access_set = plane, .chain = bfly, .chain_mul = bfly, .stride = stride > 1 ? 16.0 * stride : 0,
                       .stride_stores = stride > 1 ? points : 0,
                       .moves = 12.0 * bfly);
}

/* Element row (z, y) of layout 1 and (y, z) of layout 2: nx contiguous points. */
static double complex *row_of(double complex *a, int layout, int z, int y)
{
  return layout == 1 ? &L1(a, z, y, 0) : &L2(a, y, z, 0);
}

/* FROM (layout 1 if FROM_LAYOUT is 1, else 2) into TO (the other layout): pack each process'
 * block (my z range x its y range, or my y range x its z range), all-to-all, unpack. Block q
 * holds rows in (z, y) order either way, z of the layout-1 side's range, y of the layout-2's. */
static void transpose(double complex *from, int from_layout, double complex *to)
{
  size_t block = (size_t)zloc * yloc * nx;
  int to_layout = 3 - from_layout;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int q = 0; q < run.nprocs; q++)
      for (int z = 0; z < zloc; z++)
        for (int y = 0; y < yloc; y++) {
          int gz = from_layout == 1 ? z : q * zloc + z, gy = from_layout == 1 ? q * yloc + y : y;
          memcpy(&sendbuf[q * block + ((size_t)z * yloc + y) * nx], row_of(from, from_layout, gz, gy),
                 nx * sizeof *from);
        }
  ICSIM_PHASE_END_WORK(.bytes = 32.0 * block * run.nprocs, .working_set = 64.0 * pts_local());
  MPI_Alltoall(sendbuf, (int)(2 * block), MPI_DOUBLE, recvbuf, (int)(2 * block), MPI_DOUBLE, MPI_COMM_WORLD);
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int p = 0; p < run.nprocs; p++)
      for (int z = 0; z < zloc; z++)
        for (int y = 0; y < yloc; y++) {
          int gz = to_layout == 1 ? z : p * zloc + z, gy = to_layout == 1 ? p * yloc + y : y;
          memcpy(row_of(to, to_layout, gz, gy), &recvbuf[p * block + ((size_t)z * yloc + y) * nx], nx * sizeof *to);
        }
  ICSIM_PHASE_END_WORK(.bytes = 32.0 * block * run.nprocs, .working_set = 64.0 * pts_local());
}

/* forward: A (layout 1) -> B (layout 2); backward: B (layout 2) -> A (layout 1) */
static void fft3d_forward(double complex *a, double complex *b)
{
  fft_lines(a, nx, 1, ny, nx, zloc, (size_t)nx * ny, -1);
  fft_lines(a, ny, nx, nx, 1, zloc, (size_t)nx * ny, -1);
  transpose(a, 1, b);
  fft_lines(b, nz, nx, nx, 1, yloc, (size_t)nx * nz, -1);
}

static void fft3d_backward(double complex *b, double complex *a)
{
  fft_lines(b, nz, nx, nx, 1, yloc, (size_t)nx * nz, +1);
  transpose(b, 2, a);
  fft_lines(a, ny, nx, nx, 1, zloc, (size_t)nx * ny, +1);
  fft_lines(a, nx, 1, ny, nx, zloc, (size_t)nx * ny, +1);
}

/* The 2D layout's transposes. Each sends every process of COMM one block: the pack cuts each
 * of this process' ROWS rows (N points, the whole dimension) into COMM-size chunks of LEN points,
 * chunk q to process q; the unpack writes the blocks received (each [outer][middle][inner], as
 * the sender packed them) into the next pencil, where the dimension that was cut is now whole. */
static void pencil_pack(const double complex *from, size_t rows, int n, int len, int np)
{
  size_t block = rows * len;
  for (int q = 0; q < np; q++)
    for (size_t r = 0; r < rows; r++)
      memcpy(&sendbuf[q * block + r * len], &from[r * n + (size_t)q * len], len * sizeof *from);
}

/* KEEP_OUTER: to[o][i][p * M + m] (x <-> y: z stays outermost); else to[i][m][p * O + o]
 * (y <-> z: x stays in the middle). */
static void pencil_unpack(double complex *to, int keep_outer, int o_n, int m_n, int i_n, int np)
{
  size_t block = (size_t)o_n * m_n * i_n;
  for (int p = 0; p < np; p++)
    for (int o = 0; o < o_n; o++)
      for (int m = 0; m < m_n; m++) {
        const double complex *src = &recvbuf[p * block + ((size_t)o * m_n + m) * i_n];
        for (int i = 0; i < i_n; i++)
          if (keep_outer)
            to[((size_t)o * i_n + i) * ((size_t)m_n * np) + (size_t)p * m_n + m] = src[i];
          else
            to[((size_t)i * m_n + m) * ((size_t)o_n * np) + (size_t)p * o_n + o] = src[i];
      }
}

/* FROM pencil FROM_P into TO pencil TO_P (neighbours: 1 <-> 2 over col_comm, 2 <-> 3 over
 * row_comm); TO may be FROM, the data goes through the buffers. */
static void pencil_transpose(double complex *from, int from_p, double complex *to, int to_p)
{
  int xy = from_p + to_p == 3, np = xy ? np1 : np2;
  MPI_Comm comm = xy ? col_comm : row_comm;
  size_t block = npts / np;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton) {
    if (from_p == 1) /* rows (z, y) of x, cut by x into P2's ranges */
      pencil_pack(from, (size_t)zloc * y1loc, nx, xloc, np);
    else if (from_p == 3) /* rows (y, x) of z, cut by z into P2's ranges */
      pencil_pack(from, (size_t)y3loc * xloc, nz, zloc, np);
    else /* rows (z, x) of y, cut by y into P1's or P3's ranges */
      pencil_pack(from, (size_t)zloc * xloc, ny, to_p == 1 ? y1loc : y3loc, np);
  }
  ICSIM_PHASE_END_WORK(.bytes = 32.0 * npts, .working_set = 64.0 * npts);
  MPI_Alltoall(sendbuf, (int)(2 * block), MPI_DOUBLE, recvbuf, (int)(2 * block), MPI_DOUBLE, comm);
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton) {
    if (to_p == 2 && from_p == 1) /* [z][y][x] blocks -> P2 [z][x][y] */
      pencil_unpack(to, 1, zloc, y1loc, xloc, np);
    else if (to_p == 1) /* [z][x][y] blocks -> P1 [z][y][x] */
      pencil_unpack(to, 1, zloc, xloc, y1loc, np);
    else if (to_p == 3) /* [z][x][y] blocks -> P3 [y][x][z] */
      pencil_unpack(to, 0, zloc, xloc, y3loc, np);
    else /* from P3: [y][x][z] blocks -> P2 [z][x][y] */
      pencil_unpack(to, 0, y3loc, xloc, zloc, np);
  }
  ICSIM_PHASE_END_WORK(.bytes = 32.0 * npts, .working_set = 64.0 * npts);
}

/* forward: A (P1) -> B (P3); backward: B (P3) -> A (P1). Every transform runs on whole,
 * contiguous lines. */
static void pencil_forward(double complex *a, double complex *b)
{
  fft_lines(a, nx, 1, zloc * y1loc, nx, 1, 0, -1);
  pencil_transpose(a, 1, b, 2);
  fft_lines(b, ny, 1, zloc * xloc, ny, 1, 0, -1);
  pencil_transpose(b, 2, b, 3);
  fft_lines(b, nz, 1, y3loc * xloc, nz, 1, 0, -1);
}

static void pencil_backward(double complex *b, double complex *a)
{
  fft_lines(b, nz, 1, y3loc * xloc, nz, 1, 0, +1);
  pencil_transpose(b, 3, b, 2);
  fft_lines(b, ny, 1, zloc * xloc, ny, 1, 0, +1);
  pencil_transpose(b, 2, a, 1);
  fft_lines(a, nx, 1, zloc * y1loc, nx, 1, 0, +1);
}

static void forward(double complex *a, double complex *b)
{
  if (pencils)
    pencil_forward(a, b);
  else
    fft3d_forward(a, b);
}

static void backward(double complex *b, double complex *a)
{
  if (pencils)
    pencil_backward(b, a);
  else
    fft3d_backward(b, a);
}

static void compute_indexmap(void)
{
  double ap = -4.0 * ALPHA * M_PI * M_PI;
  size_t pts = npts;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton && pencils) /* P3: [y][x][z] */
    for (int yl = 0; yl < y3loc; yl++) {
      int j = y3_lo + yl, jj = (j + ny / 2) % ny - ny / 2;
      for (int xl = 0; xl < xloc; xl++) {
        int i = x_lo + xl, ii = (i + nx / 2) % nx - nx / 2;
        for (int k = 0; k < nz; k++) {
          int kk = (k + nz / 2) % nz - nz / 2;
          twiddle[((size_t)yl * xloc + xl) * nz + k] = exp(ap * (double)(ii * ii + jj * jj + kk * kk));
        }
      }
    }
  else if (!run.skeleton)
    for (int yl = 0; yl < yloc; yl++) {
      int j = run.rank * yloc + yl, jj = (j + ny / 2) % ny - ny / 2;
      for (int k = 0; k < nz; k++) {
        int kk = (k + nz / 2) % nz - nz / 2;
        for (int i = 0; i < nx; i++) {
          int ii = (i + nx / 2) % nx - nx / 2;
          L2(twiddle, yl, k, i) = exp(ap * (double)(ii * ii + jj * jj + kk * kk));
        }
      }
    }
  ICSIM_PHASE_END(30.0 * pts, 8.0 * pts);
}

/* plane z starts at FT_SEED * A^(2 nx ny z); real and imaginary parts in x-fastest order */
static void compute_initial_conditions(double complex *a)
{
  double an = npb_pow46(A_MULT, 2LL * nx * ny), start = FT_SEED;
  /* the first row this process holds: (z_lo, 0) in slabs, (z_lo, y1_lo) in pencils */
  if (pencils)
    randlc(&start, npb_pow46(A_MULT, 2LL * nx * ((long long)z_lo * ny + y1_lo)));
  else
    randlc(&start, npb_pow46(an, (long long)run.rank * zloc));
  int rows = pencils ? y1loc : ny; /* contiguous rows of each plane, consecutive in the stream */
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int z = 0; z < zloc; z++) {
      double x0 = start;
      for (int y = 0; y < rows; y++)
        vranlc(2 * nx, &x0, A_MULT, (double *)&a[((size_t)z * rows + y) * nx]);
      randlc(&start, an);
    }
  ICSIM_PHASE_END(8.0 * npts, 16.0 * npts);
}

static void evolve(void)
{
  size_t pts = npts;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (size_t i = 0; i < pts; i++) {
      u0[i] *= twiddle[i];
      u1[i] = u0[i];
    }
  /* per point: load u0 and the factor, 2 multiplies, store u0 and u1, loop control 2 */
  ICSIM_PHASE_END_WORK(.ops = 8.0 * pts, .bytes = 56.0 * pts, .working_set = 40.0 * pts);
}

static double complex checksum(const double complex *a)
{
  double complex chk = 0;
  if (!run.skeleton)
    for (int j = 1; j <= 1024; j++) {
      int q = j % nx, r = (3 * j) % ny, s = (5 * j) % nz;
      if (pencils) {
        if (r >= y1_lo && r < y1_lo + y1loc && s >= z_lo && s < z_lo + zloc)
          chk += a[((size_t)(s - z_lo) * y1loc + (r - y1_lo)) * nx + q];
      } else if (s / zloc == run.rank)
        chk += L1(a, s % zloc, r, q);
    }
  double in[2] = {creal(chk), cimag(chk)}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return (out[0] + I * out[1]) / ((double)nx * ny * nz);
}

/* reference checksums of the NPB 3 definition */
static const double ref_s[6][2] = {{5.546087004964e+02, 4.845363331978e+02}, {5.546385409189e+02, 4.865304269511e+02},
                                   {5.546148406171e+02, 4.883910722336e+02}, {5.545423607415e+02, 4.901273169046e+02},
                                   {5.544255039624e+02, 4.917475857993e+02}, {5.542683411902e+02, 4.932597244941e+02}};
static const double ref_w[6][2] = {{5.673612178944e+02, 5.293246849175e+02}, {5.631436885271e+02, 5.282149986629e+02},
                                   {5.594024089970e+02, 5.270996558037e+02}, {5.560698047020e+02, 5.260027904925e+02},
                                   {5.530898991250e+02, 5.249400845633e+02}, {5.504159734538e+02, 5.239212247086e+02}};
static const double ref_a[6][2] = {{5.046735008193e+02, 5.114047905510e+02}, {5.059412319734e+02, 5.098809666433e+02},
                                   {5.069376896287e+02, 5.098144042213e+02}, {5.077892868474e+02, 5.101336130759e+02},
                                   {5.085233095391e+02, 5.104914655194e+02}, {5.091487099959e+02, 5.107917842803e+02}};
static const double ref_b[20][2] = {
    {5.177643571579e+02, 5.077803458597e+02}, {5.154521291263e+02, 5.088249431599e+02},
    {5.146409228649e+02, 5.096208912659e+02}, {5.142378756213e+02, 5.101023387619e+02},
    {5.139626667737e+02, 5.103976610617e+02}, {5.137423460082e+02, 5.105948019802e+02},
    {5.135547056878e+02, 5.107404165783e+02}, {5.133910925466e+02, 5.108576573661e+02},
    {5.132470705390e+02, 5.109577278523e+02}, {5.131197729984e+02, 5.110460304483e+02},
    {5.130070319283e+02, 5.111252433800e+02}, {5.129070537032e+02, 5.111968077718e+02},
    {5.128182883502e+02, 5.112616233064e+02}, {5.127393733383e+02, 5.113203605551e+02},
    {5.126691062020e+02, 5.113735928093e+02}, {5.126064276004e+02, 5.114218460548e+02},
    {5.125504076570e+02, 5.114656139760e+02}, {5.125002331720e+02, 5.115053595966e+02},
    {5.124551951846e+02, 5.115415130407e+02}, {5.124146770029e+02, 5.115744692211e+02}};
static const double ref_c[20][2] = {
    {5.195078707457e+02, 5.149019699238e+02}, {5.155422171134e+02, 5.127578201997e+02},
    {5.144678022222e+02, 5.122251847514e+02}, {5.140150594328e+02, 5.121090289018e+02},
    {5.137550426810e+02, 5.121143685824e+02}, {5.135811056728e+02, 5.121496764568e+02},
    {5.134569343165e+02, 5.121870921893e+02}, {5.133651975661e+02, 5.122193250322e+02},
    {5.132955192805e+02, 5.122454735794e+02}, {5.132410471738e+02, 5.122663649603e+02},
    {5.131971141679e+02, 5.122830879827e+02}, {5.131605205716e+02, 5.122965869718e+02},
    {5.131290734194e+02, 5.123075927445e+02}, {5.131012720314e+02, 5.123166486553e+02},
    {5.130760908195e+02, 5.123241541685e+02}, {5.130528295923e+02, 5.123304037599e+02},
    {5.130310107773e+02, 5.123356167976e+02}, {5.130103090133e+02, 5.123399592211e+02},
    {5.129905029333e+02, 5.123435588985e+02}, {5.129714421109e+02, 5.123465164008e+02}};

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rc = npb_start(&run, "FT", argc, argv, "SWABC");
  if (rc) {
    MPI_Finalize();
    return rc & 0xff;
  }
  const double(*ref)[2];
  switch (run.cls) {
  case 'S': nx = 64; ny = 64; nz = 64; niter = 6; ref = ref_s; break;
  case 'W': nx = 128; ny = 128; nz = 32; niter = 6; ref = ref_w; break;
  case 'A': nx = 256; ny = 256; nz = 128; niter = 6; ref = ref_a; break;
  case 'B': nx = 512; ny = 256; nz = 256; niter = 20; ref = ref_b; break;
  default: nx = 512; ny = 512; nz = 512; niter = 20; ref = ref_c; break;
  }
  /* NPB's default grid: slabs (1 x np) up to nz processes, then nz x (np / nz) pencils; or the
   * grid asked for, as NPB's inputft.data gives it. Every class has nx >= ny >= nz. */
  if (!run.grid[0] && (rc = npb_check_procs(&run, nz * nz, "pencils of at least one line along each axis")))
    goto done;
  np1 = run.grid[0] ? run.grid[0] : run.nprocs > nz ? nz : 1;
  np2 = run.grid[0] ? run.grid[1] : run.nprocs / np1;
  if ((long long)np1 * np2 != run.nprocs || np1 > ny || np2 > nz || (np1 & (np1 - 1))) {
    if (run.rank == 0)
      fprintf(stderr, "FT class %c: --grid %dx%d does not fit %d processes: NP1 x NP2 must be the process count, NP1 a "
              "power of two up to %d, NP2 up to %d\n", run.cls, np1, np2, run.nprocs, ny, nz);
    rc = 2;
    goto done;
  }
  pencils = np1 > 1;
  if (pencils) {
    me1 = run.rank / np2;
    me2 = run.rank % np2;
    zloc = nz / np2;
    xloc = nx / np1;
    y1loc = ny / np1;
    y3loc = ny / np2;
    z_lo = me2 * zloc;
    y1_lo = me1 * y1loc;
    x_lo = me1 * xloc;
    y3_lo = me2 * y3loc;
    MPI_Comm_split(MPI_COMM_WORLD, me1, me2, &row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, me2, me1, &col_comm);
  } else {
    zloc = nz / run.nprocs;
    yloc = ny / run.nprocs;
  }
  npts = (size_t)nx * ny * nz / run.nprocs;
  size_t pts = npts;
  u0 = npb_alloc(&run, pts * sizeof *u0, "u0");
  u1 = npb_alloc(&run, pts * sizeof *u1, "u1");
  sendbuf = npb_alloc(&run, pts * sizeof *sendbuf, "transpose send buffer");
  recvbuf = npb_alloc(&run, pts * sizeof *recvbuf, "transpose receive buffer");
  twiddle = npb_alloc(&run, pts * sizeof *twiddle, "twiddle");
  int maxn = nx > ny ? nx : ny;
  line = malloc((size_t)(maxn > nz ? maxn : nz) * sizeof *line);
  if (run.rank == 0)
    printf("\n NAS Parallel Benchmarks (icsim implementation) - FT Benchmark\n Size: %4dx%4dx%4d  (class %c)\n"
           " Iterations: %7d\n Number of processes: %7d\n Processor array: %5d x %d (%s)\n",
           nx, ny, nz, run.cls, niter, run.nprocs, pencils ? np1 : 1, pencils ? np2 : run.nprocs,
           pencils ? "2D layout, pencils" : "1D layout, slabs");

  /* untimed pass bringing every page in, then start over: everything below is timed */
  compute_indexmap();
  compute_initial_conditions(u1);
  forward(u1, u0);

  double complex sums[21];
  npb_timer_start(&run);
  compute_indexmap();
  compute_initial_conditions(u1);
  forward(u1, u0);
  for (int it = 1; it <= niter; it++) {
    evolve();
    backward(u1, u1); /* in place: the transpose goes through the buffers */
    sums[it] = checksum(u1);
    if (run.rank == 0 && !run.skeleton)
      printf(" T = %5d     Checksum = %22.12e %22.12e\n", it, creal(sums[it]), cimag(sums[it]));
  }
  npb_timer_stop(&run);

  int verified = -1;
  if (!run.skeleton) {
    verified = 1;
    for (int it = 1; it <= niter; it++) {
      double complex r = ref[it - 1][0] + I * ref[it - 1][1];
      if (!(cabs((sums[it] - r) / r) <= 1e-12))
        verified = 0;
    }
  }
  double ntotal = (double)nx * ny * nz;
  double mops = ntotal * (14.8157 + 7.19641 * log(ntotal) + (5.23518 + 7.82126 * log(ntotal)) * niter) / run.time_s / 1e6;
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d", nx, ny, nz);
  npb_report(&run, size, niter, mops, "floating point", verified);
  if (pencils) {
    MPI_Comm_free(&row_comm);
    MPI_Comm_free(&col_comm);
  }
done:
  MPI_Finalize();
  return rc;
}
