/* `icsim run` exits with the program's status, whatever way the program ends, says what happened
 * in one readable line instead of SimGrid's backtraces, refuses programs and --stats targets it
 * cannot use before anything runs, and leaves nothing in its temporary folder. The expected
 * statuses are the ones the programs ask for (tests/progs/exit_paths.c, exit_paths_f.f90) or the
 * shell's convention 128 + signal number. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define SCORE ICSIM_SRC "/platforms/score-gige-xeon.yaml"
#define PROG ICSIM_BUILD "/tests/progs/exit_paths"
#define FPROG ICSIM_BUILD "/tests/progs/exit_paths_f"

/* A private TMPDIR for every command, checked empty after it. */
static char tmpdir[64];

static void make_tmpdir(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/icsim-test-exit-XXXXXX");
  cr_assert(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  cr_assert_eq(system(cmd), 0);
}

static int entries(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *de;
  while (d && (de = readdir(d)))
    n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
  if (d)
    closedir(d);
  return n;
}

/* Run `icsim ARGS` (stdout and stderr merged), expect STATUS and every NULL-terminated needle. */
static char *expect(int status, const char *args, ...)
{
  char *cmd;
  if (asprintf(&cmd, "TMPDIR=%s " ICSIM " %s", tmpdir, args) < 0)
    abort();
  va_list ap;
  va_start(ap, args);
  char *out = run_expecting(cmd, status, ap);
  va_end(ap);
  /* SimGrid's own failure reports never reach the user */
  cr_assert(!strstr(out, "Backtrace") && !strstr(out, "CRITICAL") && !strstr(out, "Actor pid"), "%s:\n%s", cmd,
            out);
  cr_assert_eq(entries(tmpdir), 0, "'%s' left files in its temporary folder %s", cmd, tmpdir);
  free(cmd);
  return out;
}

#define RUN2 "run -p " SCORE " -n 2 --host-timing off "
#define RUN4 "run -p " SCORE " -n 4 --host-timing off "

TestSuite(exit, .init = make_tmpdir, .fini = remove_tmpdir);

Test(exit, mpi_abort_gives_its_code)
{
  free(expect(0, RUN2 PROG " normal", NULL));
  free(expect(7, RUN2 PROG " abort-world 7", "icsim: rank 1 called MPI_Abort with error code 7", NULL));
  /* the communicator does not matter: every rank stops, rank 0 blocked in a receive included */
  free(expect(5, RUN2 PROG " abort-self 5", "error code 5", NULL));
  free(expect(6, RUN4 PROG " abort-sub 6", "error code 6", NULL));
  /* a status keeps its low 8 bits (259 = 256 + 3); an abort never reads as success */
  free(expect(3, RUN2 PROG " abort-world 259", NULL));
  free(expect(1, RUN2 PROG " abort-world 0", NULL));
  char *out = expect(11, RUN2 FPROG " abort", "icsim: rank 1 called MPI_Abort with error code 11", NULL);
  cr_assert(!strstr(out, "deadlock"), "%s", out);
  free(out);
}

Test(exit, exit_and_return_give_their_status)
{
  /* rank 1 leaves, rank 0 waits for it forever: the status is rank 1's, and both are told */
  free(expect(9, RUN2 PROG " exit 9", "icsim: rank 1 called exit(9) before MPI_Finalize",
              "rank 0 on node0.s0 waiting for communication", NULL));
  /* rank 0 leaves, rank 1 then sends to it: SMPI alone aborts on an assertion (status 134) */
  free(expect(9, RUN2 PROG " exit-rank0 9", "rank 1 sends to rank 0, which has already ended (it called exit(9)",
              NULL));
  char *out = expect(4, RUN2 PROG " return-nonzero 4", NULL);
  cr_assert(!strstr(out, "crashed") && !strstr(out, "deadlock"), "%s", out);
  free(out);
  free(expect(0, RUN2 PROG " no-finalize", "ranks 0-1 returned from main without calling MPI_Finalize", NULL));
  /* the C library's exit() from a rank (here a Fortran STOP) ends the whole program with its status */
  free(expect(9, RUN2 FPROG " stop", "rank 1 ended the whole program with exit status 9", NULL));
  free(expect(5, RUN2 FPROG " error-stop", "rank 1 ended the whole program with exit status 5", NULL));
}

/* A rank cannot have processes of its own: fork() is refused with a message, status 3. */
Test(exit, fork_is_refused)
{
  char *out = expect(3, RUN2 PROG " fork", "icsim: rank 1 called fork(): a simulated rank cannot create processes",
                     NULL);
  cr_assert(!strstr(out, "deadlock") && !strstr(out, "without calling MPI_Finalize"), "%s", out);
  free(out);
}

Test(exit, signals_give_128_plus_n)
{
  char needle[96];
  snprintf(needle, sizeof needle, "the program crashed (aborted, exit status %d)", 128 + SIGABRT);
  free(expect(128 + SIGABRT, RUN2 PROG " abort", needle, NULL));
  snprintf(needle, sizeof needle, "the program crashed (segmentation fault, exit status %d)", 128 + SIGSEGV);
  free(expect(128 + SIGSEGV, RUN2 PROG " segv", needle, NULL));
}

/* Output well beyond a pipe's capacity on both streams arrives whole, and the status with it. */
Test(exit, a_lot_of_output_arrives_whole)
{
  char cmd[512], *out;
  snprintf(cmd, sizeof cmd,
           "TMPDIR=%s " ICSIM " " RUN2 PROG " print 40000 >%s/../exit-out.txt 2>%s/../exit-err.txt; echo $?", tmpdir,
           tmpdir, tmpdir);
  cr_assert_eq(run(cmd, &out, 1), 0);
  cr_assert_eq(atoi(out), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "grep -c '^out [01] ' %s/../exit-out.txt; grep -c '^err [01] ' %s/../exit-err.txt; "
                            "rm -f %s/../exit-out.txt %s/../exit-err.txt", tmpdir, tmpdir, tmpdir, tmpdir);
  run(cmd, &out, 1);
  int nout = 0, nerr = 0;
  cr_assert_eq(sscanf(out, "%d %d", &nout, &nerr), 2, "%s", out);
  cr_assert_eq(nout, 2 * 40000);
  cr_assert_eq(nerr, 2 * 40000);
  free(out);
  cr_assert_eq(entries(tmpdir), 0);
}

/* Programs that cannot run under icsim are named for what they are before SimGrid starts. */
Test(exit, foreign_programs_are_refused_with_the_fix)
{
  free(expect(2, RUN2 "/bin/true", "was not built with icsimcc", "icsimcc", NULL));
  free(expect(2, RUN2 ICSIM_SRC "/bench/run", "is a script", NULL));
  char dir[] = "/tmp/icsim-foreign-XXXXXX", cmd[1024], *out;
  cr_assert(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "smpicc -o %s/plain " ICSIM_SRC "/tests/progs/exit_paths.c", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, RUN2 "%s/plain normal", dir);
  free(expect(2, cmd, "built with smpicc but without the icsim MPI layer", NULL));
  /* a binary built against MPICH (the MPI named explicitly: the mpicc alternative may be Open MPI) */
  if (run("command -v mpicc.mpich", &out, 0) == 0) {
    free(out);
    snprintf(cmd, sizeof cmd, "mpicc.mpich -o %s/native " ICSIM_SRC "/tests/progs/exit_paths.c", dir);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
    free(out);
    /* it runs unchanged through the MPI adaptor (stacks/abi), with the program's status */
    snprintf(cmd, sizeof cmd, RUN2 "%s/native normal", dir);
    free(expect(0, cmd, NULL));
  } else {
    free(out);
  }
  /* built against an MPI whose ABI the adaptor does not translate (Open MPI 1.x's libmpi.so.12) */
  snprintf(cmd, sizeof cmd,
           "cd %s && echo 'int MPI_Init(void) { return 0; }' > old.c && gcc -shared -fPIC -Wl,-soname,libmpi.so.12 "
           "-o libmpi.so.12 old.c && printf 'int MPI_Init(void);\\nint main(void) { return MPI_Init(); }\\n' > "
           "oldmpi.c && gcc -fPIE -pie -o oldmpi oldmpi.c ./libmpi.so.12",
           dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, RUN2 "%s/oldmpi", dir);
  free(expect(2, cmd, "an MPI whose ABI the adaptor (the `abi` stack) does not translate (it needs libmpi.so.12",
              NULL));
  /* built with icsimcc against a library that has since gone: SMPI's dlopen fails */
  snprintf(cmd, sizeof cmd,
           "cd %s && echo 'int gone(void) { return 0; }' > gone.c && gcc -shared -fPIC -o libicsimgone.so gone.c && "
           "printf '#include <mpi.h>\\nint gone(void);\\nint main(int c, char **v) { MPI_Init(&c, &v); "
           "MPI_Finalize(); return gone(); }\\n' > uses.c && " ICSIM_BUILD "/bin/icsimcc -o uses uses.c -L. "
           "-licsimgone && rm libicsimgone.so",
           dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, RUN2 "%s/uses", dir);
  free(expect(2, cmd, "SimGrid could not load the program: libicsimgone.so: cannot open shared object file", NULL));
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

static char *slurp(const char *path)
{
  char cmd[512], *out;
  snprintf(cmd, sizeof cmd, "cat %s", path);
  run(cmd, &out, 0);
  return out;
}

/* --stats is checked before the run (the program must not start: `print 1` would print), never
 * replaces anything but a regular file, and is replaced only by a run that reached its end. */
Test(exit, stats_targets)
{
  char cmd[1024], *out;
  struct stat before, after;
  cr_assert_eq(stat("/dev/full", &before), 0);
  const char *bad[][2] = {{"/dev/full", "a character device, not a regular file"},
                          {"/tmp", "a folder, not a regular file"},
                          {"/nonexistent-icsim/run.json", "folder /nonexistent-icsim does not exist"},
                          {"/proc/icsim-run.json", "cannot create a file there"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " print 1", bad[i][0]);
    out = expect(2, cmd, bad[i][1], NULL);
    cr_assert(!strstr(out, "out 0 0"), "the program ran:\n%s", out);
    free(out);
  }
  cr_assert_eq(stat("/dev/full", &after), 0);
  cr_assert(S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev, "/dev/full was replaced");
  /* a FIFO, and a symbolic link to a device */
  char dir[] = "/tmp/icsim-stats-XXXXXX", path[256];
  cr_assert(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/fifo", dir);
  cr_assert_eq(mkfifo(path, 0600), 0);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " normal", path);
  free(expect(2, cmd, "a pipe (FIFO), not a regular file", NULL));
  snprintf(path, sizeof path, "%s/link", dir);
  cr_assert_eq(symlink("/dev/null", path), 0);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " normal", path);
  free(expect(2, cmd, "a character device", NULL));
  /* a read-only file (root may write anything: then the run goes ahead and replaces it) */
  snprintf(path, sizeof path, "%s/ro.json", dir);
  FILE *ro = fopen(path, "w");
  fputs("kept\n", ro);
  fclose(ro);
  cr_assert_eq(chmod(path, 0444), 0);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " normal", path);
  if (geteuid() != 0) {
    free(expect(2, cmd, "the file is read-only", NULL));
    char *kept = slurp(path);
    cr_assert_str_eq(kept, "kept\n");
    free(kept);
  }
  unlink(path);
  /* an existing file: kept as it was by a run that does not end, replaced whole by one that does */
  snprintf(path, sizeof path, "%s/run.json", dir);
  FILE *f = fopen(path, "w");
  fputs("old\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " exit 9", path);
  free(expect(9, cmd, "not written: the simulation did not run to its end", NULL));
  out = slurp(path);
  cr_assert_str_eq(out, "old\n");
  free(out);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " abort-world 7", path);
  free(expect(7, cmd, NULL));
  out = slurp(path);
  cr_assert_str_eq(out, "old\n");
  free(out);
  snprintf(cmd, sizeof cmd, RUN2 "--stats %s " PROG " normal", path);
  free(expect(0, cmd, NULL));
  out = slurp(path);
  cr_assert(!strncmp(out, "{\n", 2) && strstr(out, "\"simulated_time_s\"") && !strcmp(out + strlen(out) - 2, "}\n"),
            "%s", out);
  free(out);
  /* nothing else was left beside it: fifo, link, run.json */
  cr_assert_eq(entries(dir), 3);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
