/* The program `icsim run` is asked to run: finding it, and checking before SimGrid starts that it
 * can run at all. SMPI dlopens the program once per rank; a file that is not a position-independent
 * ELF built against SimGrid's MPI, with the icsim MPI layer linked in, fails deep inside SimGrid
 * with a backtrace. The dynamic section says which MPI a binary was built against (DT_NEEDED). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "elf_deps.h"

char *find_program(const char *name)
{
  char buf[PATH_MAX];
  if (strchr(name, '/'))
    return realpath(name, buf) && access(buf, X_OK) == 0 ? strdup(buf) : NULL;
  const char *path = getenv("PATH");
  char *copy = strdup(path ? path : "");
  char *found = NULL;
  for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    if (access(buf, X_OK) == 0)
      found = strdup(buf);
  }
  free(copy);
  /* our own workloads by bare name: `icsim run ... osu_latency`, `icsim run ... is A` */
  static const char *const dirs[] = {"workloads", "workloads/npb", NULL};
  for (const char *const *d = dirs; !found && *d; d++) {
    snprintf(buf, sizeof buf, "%s/../%s/%s", ICSIM_BINDIR, *d, name);
    char real[PATH_MAX];
    struct stat sb;
    if (access(buf, X_OK) == 0 && stat(buf, &sb) == 0 && S_ISREG(sb.st_mode) && realpath(buf, real))
      found = strdup(real);
  }
  return found;
}

/* What the dynamic section of a 64-bit ELF says. */
struct elf_facts {
  int pie;            /* ET_DYN: SMPI can dlopen it */
  int dynamic;        /* has a dynamic section at all */
  int simgrid, layer, asan;
};

static int read_at(FILE *f, long off, void *buf, size_t len)
{
  return fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, len, f) == len ? 0 : -1;
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Read the DT_NEEDED names of an ELF64 through its section headers (kept by strip). */
static int elf_facts(FILE *f, const Elf64_Ehdr *eh, struct elf_facts *ef)
{
  ef->pie = eh->e_type == ET_DYN;
  if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > 4096)
    return 0;
  Elf64_Shdr *sh = calloc(eh->e_shnum, sizeof *sh);
  if (read_at(f, (long)eh->e_shoff, sh, eh->e_shnum * sizeof *sh)) {
    free(sh);
    return -1;
  }
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum || sh[i].sh_size > (1 << 20))
      continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (strs->sh_size > (16 << 20))
      continue;
    ef->dynamic = 1;
    size_t n = sh[i].sh_size / sizeof(Elf64_Dyn);
    Elf64_Dyn *dyn = calloc(n + 1, sizeof *dyn);
    char *str = calloc(strs->sh_size + 1, 1);
    if (read_at(f, (long)sh[i].sh_offset, dyn, n * sizeof *dyn) == 0 &&
        read_at(f, (long)strs->sh_offset, str, strs->sh_size) == 0)
      for (size_t k = 0; k < n && dyn[k].d_tag != DT_NULL; k++) {
        if (dyn[k].d_tag != DT_NEEDED || dyn[k].d_un.d_val >= strs->sh_size)
          continue;
        const char *lib = str + dyn[k].d_un.d_val;
        ef->simgrid |= starts(lib, "libsimgrid.so");
        ef->layer |= starts(lib, "libicsim_mpi.so");
        ef->asan |= starts(lib, "libasan.so");
      }
    free(dyn);
    free(str);
  }
  free(sh);
  return 0;
}

const char *program_abi_name(enum program_abi abi)
{
  return abi == PROGRAM_ABI_MPICH ? "mpich" : abi == PROGRAM_ABI_OMPI ? "openmpi" : "icsim";
}

/* What a DT_NEEDED name says of MPI. */
enum mpi_kind { NOT_MPI, MPI_MPICH, MPI_OMPI, MPI_OMPI_FORTRAN, MPI_OTHER };

static enum mpi_kind mpi_kind_of(const char *lib)
{
  if (!strcmp(lib, "libmpich.so.12") || !strcmp(lib, "libmpichfort.so.12"))
    return MPI_MPICH;
  if (!strcmp(lib, "libmpi.so.40"))
    return MPI_OMPI;
  if (starts(lib, "libmpi_mpifh.so") || starts(lib, "libmpi_usempi"))
    return MPI_OMPI_FORTRAN;
  if (starts(lib, "libmpich") || starts(lib, "libmpi.so") || starts(lib, "libmpi_") || starts(lib, "libmpifort") ||
      starts(lib, "libopen-rte") || starts(lib, "libmpl"))
    return MPI_OTHER;
  return NOT_MPI;
}

static int is_mpi_library(const char *name) { return mpi_kind_of(name) != NOT_MPI; }

/* What the whole dependency tree says of MPI: for each kind, the first MPI library of that kind
 * and the object that needs it; which objects reach MPI (themselves or through what they need). */
struct tree_mpi {
  int lib[5], by[5]; /* per enum mpi_kind: object indices, -1 when none */
  char *reaches;     /* per object: 1 when it needs an MPI library, directly or not */
};

static int reaches_mpi(const struct elf_tree *t, struct tree_mpi *m, char *state, int i)
{
  if (state[i])
    return state[i] == 2 ? m->reaches[i] : 0; /* 1: on the path (a loop of libraries) */
  state[i] = 1;
  int r = 0;
  for (int k = 0; k < t->obj[i].nneeds; k++) {
    int j = t->obj[i].needs[k];
    enum mpi_kind kind = mpi_kind_of(t->obj[j].name);
    if (kind != NOT_MPI) {
      r = 1;
      if (m->lib[kind] < 0) {
        m->lib[kind] = j;
        m->by[kind] = i;
      }
    } else if (reaches_mpi(t, m, state, j))
      r = 1;
  }
  m->reaches[i] = (char)r;
  state[i] = 2;
  return r;
}

/* The libraries of the tree that call MPI (not the program, not the MPI library itself), each
 * after those it needs, as "NAME=PATH" joined by ':' (malloc'ed; NULL when none). */
static void private_libs(const struct elf_tree *t, const struct tree_mpi *m, int i, char *seen, char **out)
{
  if (seen[i])
    return;
  seen[i] = 1;
  for (int k = 0; k < t->obj[i].nneeds; k++)
    private_libs(t, m, t->obj[i].needs[k], seen, out);
  if (i == 0 || !m->reaches[i] || is_mpi_library(t->obj[i].name) || !t->obj[i].path)
    return;
  size_t have = *out ? strlen(*out) : 0, add = strlen(t->obj[i].name) + strlen(t->obj[i].path) + 3;
  char *grown = realloc(*out, have + add);
  if (!grown)
    return;
  snprintf(grown + have, add, "%s%s=%s", have ? ":" : "", t->obj[i].name, t->obj[i].path);
  *out = grown;
}

/* "the program" or "library PATH (needed by ...)" for messages about object I. */
static void who(const struct elf_tree *t, int i, char *out, size_t cap)
{
  if (i == 0)
    snprintf(out, cap, "it");
  else
    snprintf(out, cap, "its library %s", t->obj[i].path ? t->obj[i].path : t->obj[i].name);
}

int check_program(const char *path, enum program_abi *abi, char **mpi_libs, char *err, size_t errlen)
{
  *abi = PROGRAM_ABI_ICSIM;
  if (mpi_libs)
    *mpi_libs = NULL;
  err[0] = '\0';
  static const char rebuild[] = "rebuild it from its sources with " ICSIM_BINDIR "/icsimcc (" ICSIM_BINDIR
                                "/icsimff for Fortran), used like mpicc";
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "program %s: cannot read it (%s)", path, strerror(errno));
    return -1;
  }
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  size_t got = fread(&eh, 1, sizeof eh, f);
  struct elf_facts ef = {0};
  struct elf_tree tree = {0};
  struct tree_mpi m = {{-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1}, NULL};
  int rc = -1;
  if (got >= 2 && eh.e_ident[0] == '#' && eh.e_ident[1] == '!')
    snprintf(err, errlen, "program %s is a script: icsim runs the MPI program itself (each rank inside the simulator); "
             "give the binary, built with icsimcc", path);
  else if (got < sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    snprintf(err, errlen, "program %s is not an executable program (ELF); give an MPI program built with icsimcc", path);
  else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
    snprintf(err, errlen, "program %s was built for another machine (not x86-64); %s", path, rebuild);
  else if (elf_facts(f, &eh, &ef))
    snprintf(err, errlen, "program %s: cannot read its ELF headers; %s", path, rebuild);
  else {
    /* The MPI it uses may come through any library of its tree (ScaLAPACK, PETSc, HDF5): the
     * whole tree as ld.so resolves it inside smpirun, which puts the system's library folder
     * first on LD_LIBRARY_PATH. */
    const char *user = getenv("LD_LIBRARY_PATH");
    char libpath[8192];
    snprintf(libpath, sizeof libpath, "/usr/lib/x86_64-linux-gnu%s%s", user && *user ? ":" : "", user ? user : "");
    if (ef.dynamic && elf_tree_read(path, libpath, is_mpi_library, &tree, err, errlen) == 0) {
      m.reaches = calloc((size_t)tree.n, 1);
      char *state = calloc((size_t)tree.n, 1);
      if (m.reaches && state)
        reaches_mpi(&tree, &m, state, 0);
      free(state);
    }
  }
  if (rc == -1 && err[0] == '\0' && ef.dynamic && !m.reaches)
    snprintf(err, errlen, "program %s: cannot read its dynamic section; %s", path, rebuild);
  char a[PATH_MAX + 40], b[PATH_MAX + 40];
  int mpich = m.lib[MPI_MPICH] >= 0, ompi = m.lib[MPI_OMPI] >= 0;
  if (err[0])
    ;
  else if (mpich && ompi) {
    who(&tree, m.by[MPI_MPICH], a, sizeof a);
    who(&tree, m.by[MPI_OMPI], b, sizeof b);
    snprintf(err, errlen,
             "program %s mixes two MPIs in its libraries: %s needs %s (MPICH) and %s needs %s (Open MPI); one "
             "process has one MPI, so rebuild one side against the other's MPI, or %s",
             path, a, tree.obj[m.lib[MPI_MPICH]].name, b, tree.obj[m.lib[MPI_OMPI]].name, rebuild);
  } else if (m.lib[MPI_OMPI_FORTRAN] >= 0) {
    who(&tree, m.by[MPI_OMPI_FORTRAN], a, sizeof a);
    snprintf(err, errlen,
             "program %s calls MPI from Fortran built against Open MPI (%s needs %s): the MPI adaptor (the `abi` "
             "stack) translates Open MPI's C calls and MPICH's C and Fortran calls; build it with mpif90.mpich, "
             "or %s", path, a, tree.obj[m.lib[MPI_OMPI_FORTRAN]].name, rebuild);
  } else if ((mpich || ompi) && !ef.pie)
    snprintf(err, errlen, "program %s is not position-independent, so SMPI cannot load it once per rank; build it "
             "with -fPIE -pie (Debian's default), or %s", path, rebuild);
  else if (mpich || ompi) {
    *abi = mpich ? PROGRAM_ABI_MPICH : PROGRAM_ABI_OMPI;
    char *libs = NULL;
    char *seen = calloc((size_t)tree.n, 1);
    if (seen)
      private_libs(&tree, &m, 0, seen, &libs);
    free(seen);
    rc = 0;
    /* The loader gives each rank its own copy of these under a name of the same length
     * (stacks/abi/adaptor/loader.c): 7 characters of it name the rank and the library. */
    for (int i = 1; i < tree.n && rc == 0; i++) {
      const struct elf_obj *o = &tree.obj[i];
      if (!m.reaches[i] || is_mpi_library(o->name) || !o->path)
        continue;
      if (strlen(o->name) < 8)
        snprintf(err, errlen, "program %s: its library %s calls MPI, and icsim gives each rank its own copy "
                 "of such a library under a name as long as its own, 7 characters of which name the rank: names "
                 "shorter than 8 characters are not supported; rename the library", path, o->name), rc = -1;
      else if (strpbrk(o->path, ":=") || strpbrk(o->name, ":=/"))
        snprintf(err, errlen, "program %s: the path of its library %s holds ':' or '=', which icsim cannot "
                 "pass to the simulator; move the library", path, o->path), rc = -1;
    }
    if (rc == 0 && mpi_libs)
      *mpi_libs = libs;
    else
      free(libs);
  } else if (m.lib[MPI_OTHER] >= 0) {
    who(&tree, m.by[MPI_OTHER], a, sizeof a);
    snprintf(err, errlen,
             "program %s was built against an MPI whose ABI the adaptor (the `abi` stack) does not translate (%s "
             "needs %s; the adaptor serves libmpich.so.12: MPICH, Intel MPI; and libmpi.so.40: Open MPI 3 and 4); "
             "%s",
             path, a, tree.obj[m.lib[MPI_OTHER]].name, rebuild);
  } else if (!ef.dynamic || (!ef.simgrid && !ef.layer)) /* the layer brings SimGrid with it */
    snprintf(err, errlen, "program %s was not built with icsimcc (it does not use SimGrid's MPI%s); %s", path,
             ef.dynamic ? "" : ", and is statically linked", rebuild);
  else if (!ef.pie)
    snprintf(err, errlen, "program %s is not position-independent, so SMPI cannot load it once per rank; %s", path,
             rebuild);
  else if (!ef.layer)
    snprintf(err, errlen,
             "program %s was built with smpicc but without the icsim MPI layer, so its messages would bypass the "
             "stack models; %s", path, rebuild);
  else if (ef.asan != ICSIM_SANITIZED)
    snprintf(err, errlen, "program %s was built %s AddressSanitizer but this icsim %s; build it with this icsim's "
             "own compile wrapper, " ICSIM_BINDIR "/icsimcc", path, ef.asan ? "with" : "without",
             ICSIM_SANITIZED ? "is the sanitizer build" : "is not the sanitizer build");
  else
    rc = 0;
  free(m.reaches);
  elf_tree_free(&tree);
  fclose(f);
  return rc;
}
