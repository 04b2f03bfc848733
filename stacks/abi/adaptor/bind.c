/* Place in the adaptor's order (adaptor.h): the lowest file of code: calls only the generated tables. */
/* Binding the adaptor to the icsim MPI layer, as the paper's adaptor binds to the target MPI: at
 * the first MPI call the layer (libicsim_mpi.so, SMPI behind it) is loaded with dlopen and every
 * translated function is looked up with dlsym into a function table, so that the layer's MPI_Send
 * and this library's MPI_Send (the program's) never clash. RTLD_DEEPBIND keeps the layer's own calls
 * (its collectives call its MPI_Send) inside the layer.
 *
 * Each translated call is bracketed by icsim_call_enter/leave: the layer charges the call layers'
 * per-call cost (the abi stack's call_cpu: the conversions this call makes) once, and not again for
 * the calls the layer makes inside it.
 *
 * Also here: the program's `main` (SMPI looks it up through this library, see loader.c), and the
 * compute-phase hooks of our own workloads (workloads/include/icsim_phase.h) forwarded to the layer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "adaptor.h"

#ifndef ICSIM_LAYER_PATH
#error "ICSIM_LAYER_PATH: the icsim MPI layer library this adaptor forwards to"
#endif

static void *layer;
static void (*call_enter)(const char *name);
static void (*call_leave)(void);
static void (*stop_run)(int code);
static void **world;
static void *(*comm_self)(void);

static void bind_layer(void);

static void *need(const char *sym)
{
  void *p = dlsym(layer, sym);
  if (!p) {
    fprintf(stderr, "icsim: MPI adaptor: the icsim MPI layer %s has no %s (%s); rebuild icsim\n", ICSIM_LAYER_PATH,
            sym, dlerror());
    _exit(2);
  }
  return p;
}

long abi_actor(void)
{
  static long (*self_pid)(void);
  if (!layer)
    bind_layer();
  if (!self_pid)
    self_pid = (long (*)(void))need("sg_actor_self_get_pid");
  return self_pid();
}

/* This rank's row of ROWS (indexed by actor id, grown as ranks appear): N slots of SIZE bytes,
 * zeroed, allocated once and never moved (a slot's address may be held across a yield); stops
 * the run when memory runs out. */
void *abi_rank_row(struct abi_rows *rows, size_t n, size_t size)
{
  size_t pid = (size_t)abi_actor();
  if (pid >= rows->n) {
    size_t m = pid * 2 + 16;
    void **r = realloc(rows->row, m * sizeof *r);
    if (!r)
      abi_fail("out of memory for a rank's table");
    for (size_t i = rows->n; i < m; i++)
      r[i] = NULL;
    rows->row = r;
    rows->n = m;
  }
  if (!rows->row[pid] && !(rows->row[pid] = calloc(n, size)))
    abi_fail("out of memory for a rank's table");
  return rows->row[pid];
}

static void bind_layer(void)
{
  layer = dlopen(ICSIM_LAYER_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!layer) {
    fprintf(stderr, "icsim: MPI adaptor: cannot load the icsim MPI layer: %s; rebuild icsim\n", dlerror());
    _exit(2);
  }
  /* a function SMPI does not implement stays NULL: it stops the run when called (abi_enter) */
  for (int i = 0; i < abi_nfn; i++)
    abi_fn[i] = dlsym(layer, abi_fn_names[i]);
  call_enter = (void (*)(const char *))need("icsim_call_enter");
  call_leave = (void (*)(void))need("icsim_call_leave");
  stop_run = (void (*)(int))need("icsim_stop");
  world = (void **)need("MPI_COMM_WORLD");
  comm_self = (void *(*)(void))need("smpi_process_comm_self");
  /* the adaptor writes a call's output handles when it returns: the layer must not defer any
   * (sim/mpi/coll_nonblocking.c, MPI_Comm_idup) */
  *(int *)need("icsim_outputs_at_return") = 1;
}

static int trace = -1; /* ICSIM_ABI_TRACE set: every converted call is named on stderr */

void abi_enter(int fid)
{
  if (!layer)
    bind_layer();
  if (trace < 0)
    trace = getenv("ICSIM_ABI_TRACE") != NULL;
  if (trace)
    fprintf(stderr, "icsim: MPI adaptor: actor %ld: %s\n", ((long (*)(void))need("sg_actor_self_get_pid"))(),
            abi_fn_names[fid]);
  if (!abi_fn[fid])
    abi_fail("%s is translated by the adaptor but SimGrid's MPI (SMPI 3.32) does not implement it", abi_fn_names[fid]);
  call_enter(abi_fn_names[fid]);
}

void abi_leave(void) { call_leave(); }

int abi_fn_index(const char *name)
{
  for (int i = 0; i < abi_nfn; i++)
    if (!strcmp(abi_fn_names[i], name))
      return i;
  return -1;
}

const char *abi_fn_name(int fid) { return fid >= 0 && fid < abi_nfn ? abi_fn_names[fid] : "MPI"; }

void *abi_target_world(void) { return *world; }
void *abi_target_self(void) { return comm_self(); }

/* Stop the whole run, as mpiexec does when a process fails: status 3, like the other features
 * icsim does not support (README, "Exit status"). */
void abi_fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("icsim: MPI adaptor: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(NULL);
  if (!layer)
    bind_layer();
  stop_run(3);
  _exit(3);
}

void abi_untranslated(const char *name)
{
  abi_fail("%s is not translated by the adaptor (stacks/abi/spec/functions.spec lists those it translates); "
           "the program stops rather than compute a wrong answer",
           name);
}

/* SMPI resolves a program's entry point with dlsym(handle, "main"), which also searches the
 * program's libraries: an executable does not export its own main, so this one is found, and runs
 * the program's (found by the loader from the program's start code). */
int main(int argc, char **argv)
{
  void *(*program_main)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "icsim_abi_program_main");
  int (*m)(int, char **, char **) = program_main ? (int (*)(int, char **, char **))program_main() : NULL;
  if (!m) {
    fprintf(stderr, "icsim: MPI adaptor: cannot find the program's main function (%s); run the program with "
                    "`icsim run`, which loads the adaptor's loader into smpirun\n",
            program_main ? "its start code is not one the loader knows" : "the loader is not there");
    return 2;
  }
  return m(argc, argv, environ);
}

/* Our workloads' compute phases (icsim_phase.h declares these weak in every build). */
void icsim_phase_begin(void)
{
  if (!layer)
    bind_layer();
  ((void (*)(void))need("icsim_phase_begin"))();
}

void icsim_phase_end(double ops, double bytes)
{
  if (!layer)
    bind_layer();
  ((void (*)(double, double))need("icsim_phase_end"))(ops, bytes);
}

void icsim_phase_end_work(double ops, double bytes, double accesses, double working_set, double access_set,
                          double chain, double chain_mul, double chain_divide, double mispredicts, double stride,
                          double stride_stores, double paths, double branch_chain, double integer,
                          double store_fills, double chain_int, double chain_int_mul, double moves)
{
  if (!layer)
    bind_layer();
  ((void (*)(double, double, double, double, double, double, double, double, double, double, double, double,
                double, double, double, double, double, double))need(
      "icsim_phase_end_work"))(ops, bytes, accesses, working_set, access_set, chain, chain_mul, chain_divide,
                               mispredicts, stride, stride_stores, paths, branch_chain, integer, store_fills,
                               chain_int, chain_int_mul, moves);
}

double icsim_phase_seconds(void)
{
  if (!layer)
    bind_layer();
  return ((double (*)(void))need("icsim_phase_seconds"))();
}

int icsim_phase_modeled(void)
{
  if (!layer)
    bind_layer();
  return ((int (*)(void))need("icsim_phase_modeled"))();
}

void icsim_phase_site(const char *file, int line)
{
  if (!layer)
    bind_layer();
  ((void (*)(const char *, int))need("icsim_phase_site"))(file, line);
}

void icsim_phase_profile_print(FILE *f)
{
  if (!layer)
    bind_layer();
  ((void (*)(FILE *))need("icsim_phase_profile_print"))(f);
}

void icsim_phase_profile_clear(void)
{
  if (!layer)
    bind_layer();
  ((void (*)(void))need("icsim_phase_profile_clear"))();
}

/* What smpicc does to a program's source with macros (smpi_helpers.h), done here at link level for a
 * binary built elsewhere: its clock reads and sleeps are simulated time, exit() ends the rank alone
 * (the layer's smpi_exit), getpid() and getopt() are per rank. The program finds these before libc's
 * because the adaptor comes first among its libraries. */
#define SIMGRID_FN(type, name, args) ((type(*) args)need(name))

int gettimeofday(struct timeval *tv, void *tz)
{
  (void)tz;
  if (!layer)
    bind_layer();
  return SIMGRID_FN(int, "smpi_gettimeofday", (struct timeval *, void *))(tv, NULL);
}

int clock_gettime(clockid_t clk, struct timespec *tp)
{
  if (!layer)
    bind_layer();
  return SIMGRID_FN(int, "smpi_clock_gettime", (clockid_t, struct timespec *))(clk, tp);
}

unsigned int sleep(unsigned int s)
{
  if (!layer)
    bind_layer();
  return SIMGRID_FN(unsigned int, "smpi_sleep", (unsigned int))(s);
}

int usleep(useconds_t us)
{
  if (!layer)
    bind_layer();
  return SIMGRID_FN(int, "smpi_usleep", (useconds_t))(us);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
  if (!layer)
    bind_layer();
  return SIMGRID_FN(int, "smpi_nanosleep", (const struct timespec *, struct timespec *))(req, rem);
}

pid_t getpid(void)
{
  if (!layer)
    bind_layer();
  return SIMGRID_FN(pid_t, "smpi_getpid", (void))();
}

void exit(int status)
{
  if (!layer)
    bind_layer();
  SIMGRID_FN(void, "smpi_exit", (int))(status);
  _exit(status); /* not reached */
}

/* getopt's globals. An executable refers to libc's optarg, optind, opterr and optopt through copies
 * in its own data (copy relocations), which libc writes to when the executable is the main program.
 * Loaded by SMPI as a library, the program keeps its copies and libc writes its own: the program
 * would read optarg == NULL. Its calls to getopt come here first (the adaptor is among its
 * libraries, before libc): libc's getopt runs with this rank's optind, and the results are copied
 * into the program's variables. */
struct getopt_vars {
  const void *base; /* the program copy (one per rank) */
  char **optarg;
  int *optind, *opterr, *optopt;
};

static struct getopt_vars *vars_of(const void *caller)
{
  static struct getopt_vars *v;
  static size_t n;
  Dl_info di;
  if (!dladdr(caller, &di))
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (v[i].base == di.dli_fbase)
      return &v[i];
  void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return NULL;
  v = realloc(v, (n + 1) * sizeof *v);
  struct getopt_vars *g = &v[n++];
  g->base = di.dli_fbase;
  g->optarg = dlsym(h, "optarg");
  g->optind = dlsym(h, "optind");
  g->opterr = dlsym(h, "opterr");
  g->optopt = dlsym(h, "optopt");
  dlclose(h);
  return g;
}

/* libc's getopt state is one for the process: each rank's optind is kept here and handed to libc
 * around each call (0 the first time: glibc then starts the parse afresh). */
static int *rank_optind;
static size_t rank_optind_cap;

static int *my_optind(void)
{
  size_t pid = (size_t)((long (*)(void))need("sg_actor_self_get_pid"))();
  if (pid >= rank_optind_cap) {
    size_t n = pid * 2 + 16;
    rank_optind = realloc(rank_optind, n * sizeof *rank_optind);
    memset(rank_optind + rank_optind_cap, 0, (n - rank_optind_cap) * sizeof *rank_optind);
    rank_optind_cap = n;
  }
  return &rank_optind[pid];
}

static void vars_out(const struct getopt_vars *g)
{
  if (g && g->optarg && g->optarg != &optarg)
    *g->optarg = optarg;
  if (g && g->optind && g->optind != &optind)
    *g->optind = optind;
  if (g && g->optopt && g->optopt != &optopt)
    *g->optopt = optopt;
}

int getopt(int argc, char *const argv[], const char *opts)
{
  static int (*real)(int, char *const[], const char *);
  if (!layer)
    bind_layer();
  if (!real)
    real = (int (*)(int, char *const[], const char *))dlsym(RTLD_NEXT, "getopt");
  struct getopt_vars *g = vars_of(__builtin_return_address(0));
  int *mine = my_optind();
  optind = *mine;
  int r = real(argc, argv, opts);
  *mine = optind;
  vars_out(g);
  return r;
}

#define GETOPT_LONG(NAME)                                                                                          \
  int NAME(int argc, char *const argv[], const char *opts, const struct option *lo, int *idx)                     \
  {                                                                                                                \
    static int (*real)(int, char *const[], const char *, const struct option *, int *);                           \
    if (!layer)                                                                                                    \
      bind_layer();                                                                                                \
    if (!real)                                                                                                     \
      real = (int (*)(int, char *const[], const char *, const struct option *, int *))dlsym(RTLD_NEXT, #NAME);    \
    struct getopt_vars *g = vars_of(__builtin_return_address(0));                                                  \
    int *mine = my_optind();                                                                                       \
    optind = *mine;                                                                                                \
    int r = real(argc, argv, opts, lo, idx);                                                                       \
    *mine = optind;                                                                                                \
    vars_out(g);                                                                                                   \
    return r;                                                                                                      \
  }
GETOPT_LONG(getopt_long)
GETOPT_LONG(getopt_long_only)

/* The size of SMPI-side communicator TCOMM (an array argument as long as the communicator:
 * MPI_Alltoallw's types), 0 when it cannot be had. */
int abi_t_comm_size(void *tcomm)
{
  if (!layer)
    bind_layer();
  int n = 0, inter = 0;
  /* an intercommunicator's per-peer arrays run over the remote group (the layer keeps them:
   * SMPI's size of one is its union's) */
  if (((int (*)(void *, int *))need("MPI_Comm_test_inter"))(tcomm, &inter) == 0 && inter)
    return ((int (*)(void *, int *))need("MPI_Comm_remote_size"))(tcomm, &n) == 0 ? n : 0;
  if (((int (*)(void *, int *))need("PMPI_Comm_size"))(tcomm, &n) != 0)
    return 0;
  return n;
}

/* How many neighbours the calling rank has in SMPI-side communicator TCOMM's topology (the arrays of
 * MPI_Neighbor_alltoallw's types): its out-degree (OUT) or in-degree, 0 when it has no topology.
 * Asked of the icsim layer, which keeps the graph topologies (SMPI 3.32 has Cartesian ones only). */
int abi_t_neighbours(void *tcomm, int out)
{
  if (!layer)
    bind_layer();
  int kind = 0, n = 0, in = 0, outd = 0, weighted = 0, rank = 0;
  if (((int (*)(void *, int *))need("MPI_Topo_test"))(tcomm, &kind) != 0)
    return 0;
  if (kind == abi_t_const[C_DIST_GRAPH]) {
    ((int (*)(void *, int *, int *, int *))need("MPI_Dist_graph_neighbors_count"))(tcomm, &in, &outd, &weighted);
    return out ? outd : in;
  }
  if (kind == abi_t_const[C_GRAPH]) {
    ((int (*)(void *, int *))need("PMPI_Comm_rank"))(tcomm, &rank);
    ((int (*)(void *, int, int *))need("MPI_Graph_neighbors_count"))(tcomm, rank, &n);
    return n;
  }
  if (kind == abi_t_const[C_CART]) {
    ((int (*)(void *, int *))need("PMPI_Cartdim_get"))(tcomm, &n);
    return 2 * n;
  }
  return 0;
}

/* fork() from the program: the icsim layer's, which refuses it (a rank cannot have processes of its
 * own: they would copy the whole simulator). The program reaches this library's before libc's. */
pid_t fork(void)
{
  if (!layer)
    bind_layer();
  return ((pid_t(*)(void))need("fork"))();
}
