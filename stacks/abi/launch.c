/* The adaptor's part of a launch (the contract's `launch` hook): which programs are its own, and what
 * smpirun's process needs to run them. A program is the adaptor's when its dependency tree, as the
 * dynamic loader resolves it inside smpirun (sim/elf_deps.h), holds MPICH's or Open MPI's library:
 * needed by the program itself or by a library it needs (ScaLAPACK, PETSc, HDF5). Every library of
 * the tree that calls MPI is given to the loader (ICSIM_ABI_PRIVATE), which makes one copy of it
 * per rank bound to the adaptor (adaptor/loader.c). */
#define _GNU_SOURCE
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "abi.h"
#include "elf_deps.h"

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

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

/* Object I of T is a library that calls MPI, found on disk: one the loader copies per rank (not the
 * program, not the MPI library itself). */
static int copied_per_rank(const struct elf_tree *t, const struct tree_mpi *m, int i)
{
  return i > 0 && m->reaches[i] && !is_mpi_library(t->obj[i].name) && t->obj[i].path;
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
  if (!copied_per_rank(t, m, i))
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

/* Each rank gets its own copy of the program (SMPI's) and of every library of it that calls MPI (the
 * loader's) in $TMPDIR; removed once loaded, a copy still holds its space while it is mapped, to the
 * end of the run. Refuse before starting when the folder has not room for all of them. */
static int copies_fit(const char *program, const struct elf_tree *t, const struct tree_mpi *m, int nranks, char *err,
                      size_t errlen)
{
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  struct stat sb;
  double per_rank = stat(program, &sb) == 0 ? (double)sb.st_size : 0;
  for (int i = 1; i < t->n; i++)
    if (copied_per_rank(t, m, i) && stat(t->obj[i].path, &sb) == 0)
      per_rank += (double)sb.st_size;
  struct statvfs vfs;
  if (statvfs(tmp, &vfs) != 0)
    return 0; /* smpirun will say what is wrong with the folder */
  double need = per_rank * nranks, have = (double)vfs.f_bavail * (double)vfs.f_frsize;
  if (need > have) {
    snprintf(err, errlen,
             "-n %d: each rank gets its own copy of %s and of its libraries that call MPI (%.1f MB a rank, %.0f MB "
             "in all) in %s, which has %.0f MB free; set TMPDIR to a folder with room, or lower -n",
             nranks, program, per_rank / 1e6, need / 1e6, tmp, have / 1e6);
    return -1;
  }
  return 0;
}

/* The libraries to copy per rank must keep their names when renamed in place, and travel in one
 * environment variable. */
static int copyable(const char *path, const struct elf_tree *t, const struct tree_mpi *m, char *err, size_t errlen)
{
  for (int i = 1; i < t->n; i++) {
    const struct elf_obj *o = &t->obj[i];
    if (!copied_per_rank(t, m, i))
      continue;
    if (strlen(o->name) < 8) {
      snprintf(err, errlen, "program %s: its library %s calls MPI, and icsim gives each rank its own copy of such a "
               "library under a name as long as its own, 7 characters of which name the rank: names shorter than 8 "
               "characters are not supported; rename the library", path, o->name);
      return -1;
    }
    if (strpbrk(o->path, ":=") || strpbrk(o->name, ":=/")) {
      snprintf(err, errlen, "program %s: the path of its library %s holds ':' or '=', which icsim cannot pass to "
               "the simulator; move the library", path, o->path);
      return -1;
    }
  }
  return 0;
}

/* Memory mappings one loaded copy of ELF file PATH takes: one per PT_LOAD, and one for the bss
 * past the file (an estimate: ld.so may split a segment for RELRO). */
static long mappings_of(const char *path)
{
  FILE *f = fopen(path, "rb");
  Elf64_Ehdr eh;
  long n = 0;
  if (f && fread(&eh, 1, sizeof eh, f) == sizeof eh && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 1024 &&
      fseek(f, (long)eh.e_phoff, SEEK_SET) == 0)
    for (int i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      if (fread(&ph, 1, sizeof ph, f) != sizeof ph)
        break;
      n += ph.p_type == PT_LOAD;
      n += ph.p_type == PT_GNU_RELRO;
    }
  if (f)
    fclose(f);
  return n + 1;
}

/* Each rank maps its copy of the program, its copies of the MPI-calling libraries and its stack
 * (with a guard page): the process's count of mappings is bounded by vm.max_map_count (65530 by
 * default), past which SMPI fails to load a rank deep inside SimGrid. Refuse before starting. */
static int mappings_fit(const char *program, const struct elf_tree *t, const struct tree_mpi *m, int nranks,
                        char *err, size_t errlen)
{
  long per_rank = mappings_of(program) + 2;
  for (int i = 1; i < t->n; i++)
    if (copied_per_rank(t, m, i))
      per_rank += mappings_of(t->obj[i].path);
  long limit = 65530;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &limit) != 1)
      limit = 65530;
    fclose(f);
  }
  long need = per_rank * nranks + 2000; /* SimGrid, the libraries of the process */
  if (need > limit) {
    snprintf(err, errlen,
             "-n %d: each rank maps its own copy of %s and of its libraries that call MPI, about %ld memory mappings "
             "a rank, %ld in all, above this system's limit vm.max_map_count = %ld; raise it (as root: sysctl -w "
             "vm.max_map_count=%ld) or lower -n",
             nranks, program, per_rank, need, limit, 2 * need);
    return -1;
  }
  return 0;
}

static int is_pie(const char *path)
{
  FILE *f = fopen(path, "rb");
  Elf64_Ehdr eh;
  int pie = f && fread(&eh, 1, sizeof eh, f) == sizeof eh && eh.e_type == ET_DYN;
  if (f)
    fclose(f);
  return pie;
}

int abi_launch(const char *path, struct icsim_launch *l, char *err, size_t errlen)
{
  char rebuild[PATH_MAX + 200]; /* icsim's compile wrappers live beside its libraries' folder */
  snprintf(rebuild, sizeof rebuild, "rebuild it from its sources with %s/../bin/icsimcc (%s/../bin/icsimff for "
           "Fortran), used like mpicc", l->libdir, l->libdir);
  struct elf_tree tree;
  char e2[256];
  /* smpirun puts the system's library folder first on LD_LIBRARY_PATH */
  const char *user = getenv("LD_LIBRARY_PATH");
  char libpath[8192];
  snprintf(libpath, sizeof libpath, "/usr/lib/x86_64-linux-gnu%s%s", user && *user ? ":" : "", user ? user : "");
  if (elf_tree_read(path, libpath, is_mpi_library, &tree, e2, sizeof e2))
    return 0; /* not a dynamic ELF: not ours (sim/ says what it is) */
  struct tree_mpi m = {{-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -1}, calloc((size_t)tree.n, 1)};
  char *state = calloc((size_t)tree.n, 1);
  if (m.reaches && state)
    reaches_mpi(&tree, &m, state, 0);
  free(state);
  int mpich = m.lib[MPI_MPICH] >= 0, ompi = m.lib[MPI_OMPI] >= 0, rc = -1;
  char a[PATH_MAX + 40], b[PATH_MAX + 40];
  if (!m.reaches)
    snprintf(err, errlen, "program %s: out of memory reading its libraries", path);
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
             "stack) translates Open MPI's C calls and MPICH's C and Fortran calls; build it with mpif90.mpich, or %s",
             path, a, tree.obj[m.lib[MPI_OMPI_FORTRAN]].name, rebuild);
  } else if (!mpich && !ompi && m.lib[MPI_OTHER] >= 0) {
    who(&tree, m.by[MPI_OTHER], a, sizeof a);
    snprintf(err, errlen,
             "program %s was built against an MPI whose ABI the adaptor (the `abi` stack) does not translate (%s "
             "needs %s; the adaptor serves libmpich.so.12: MPICH, Intel MPI; and libmpi.so.40: Open MPI 3 and 4); "
             "%s",
             path, a, tree.obj[m.lib[MPI_OTHER]].name, rebuild);
  } else if (!mpich && !ompi)
    rc = 0; /* no MPI of ours in its tree: an icsimcc build, or nothing sim/ can run */
  else if (!is_pie(path))
    snprintf(err, errlen, "program %s is not position-independent, so SMPI cannot load it once per rank; build it "
             "with -fPIE -pie (Debian's default), or %s", path, rebuild);
  else if (copyable(path, &tree, &m, err, errlen) == 0 && copies_fit(path, &tree, &m, l->nranks, err, errlen) == 0 &&
           mappings_fit(path, &tree, &m, l->nranks, err, errlen) == 0) {
    /* The adaptor stands in for the program's MPI library: the loader, preloaded into smpirun's
     * process, loads it before the program and lets SMPI load an ordinary executable. */
    l->add_layer = 1;
    icsim_launch_env(l, "ICSIM_ABI=%s", mpich ? "mpich" : "openmpi");
    if (mpich)
      icsim_launch_env(l, "ICSIM_ABI_LIBS=%s/abi/mpich/libmpich.so.12:%s/abi/mpich/libmpichfort.so.12", l->libdir,
                       l->libdir);
    else
      icsim_launch_env(l, "ICSIM_ABI_LIBS=%s/abi/ompi/libmpi.so.40", l->libdir);
    char *libs = NULL, *seen = calloc((size_t)tree.n, 1);
    if (seen)
      private_libs(&tree, &m, 0, seen, &libs);
    free(seen);
    if (libs)
      icsim_launch_env(l, "ICSIM_ABI_PRIVATE=%s", libs);
    if (asprintf(&l->preload, "%s/libicsim_abi_loader.so", l->libdir) < 0)
      l->preload = NULL;
    /* what --dry-run says */
    size_t cap = 512 + (libs ? strlen(libs) : 0);
    l->note = malloc(cap);
    if (l->note) {
      int n = snprintf(l->note, cap, "# %s was built against %s (%s %s): it runs through the MPI adaptor, layer abi\n",
                       path, mpich ? "MPICH" : "Open MPI", libs ? "it or its libraries need" : "it needs",
                       mpich ? "libmpich.so.12" : "libmpi.so.40");
      if (libs) {
        n += snprintf(l->note + n, cap - (size_t)n, "# its libraries that call MPI, bound to the adaptor with one copy per rank:");
        for (const char *p = libs; *p && (size_t)n < cap;) {
          size_t all = strcspn(p, ":"), name = strcspn(p, "=");
          n += snprintf(l->note + n, cap - (size_t)n, " %.*s", (int)(all - name - 1), p + name + 1);
          p += all + (p[all] == ':');
        }
        if ((size_t)n < cap)
          snprintf(l->note + n, cap - (size_t)n, "\n");
      }
    }
    free(libs);
    rc = 1;
  }
  free(m.reaches);
  elf_tree_free(&tree);
  return rc;
}
