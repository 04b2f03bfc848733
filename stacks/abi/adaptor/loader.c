/* Place in the adaptor's order (adaptor.h): a library of its own; calls no file of the adaptor (it finds the
 * program's main and the adaptor's exit by dlsym). */
/* The loader: preloaded into smpirun's simulator process (smpimain) when the program needs the
 * adaptor, it lets SMPI load a program that was built as an ordinary executable.
 *
 * SMPI (dlopen privatization) copies the program to `TMPDIR/NAME_PID_RANK.so` for each rank and
 * dlopens the copy. Two things stop a Debian-built executable there:
 *   - glibc refuses to dlopen an object flagged DF_1_PIE ("cannot dlopen() a PIE object"): the
 *     loader clears that one flag in SMPI's private copy (the program's own file is never written);
 *   - `main` is not in an executable's dynamic symbol table, so SMPI's dlsym(handle, "main") finds
 *     the adaptor's instead (bind.c), which asks icsim_abi_program_main() for the program's real
 *     one: the address its start code (_start, at the ELF entry point) hands to
 *     __libc_start_main, read from the instruction that loads it into %rdi.
 * It also loads the adaptor's libraries first (preload_adaptor), and fills the program's copies of
 * other libraries' data (redo_copy_relocations). Every other dlopen goes through
 * unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* SMPI's copy of the program: a basename ending in _PID_DIGITS.so (smpi_global.cpp). */
static int is_smpi_copy(const char *file)
{
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n < 4 || strcmp(base + n - 3, ".so"))
    return 0;
  const char *p = base + n - 3;
  const char *d = p;
  while (d > base && d[-1] >= '0' && d[-1] <= '9')
    d--;
  if (d == p || d == base || d[-1] != '_')
    return 0;
  char pid[32];
  snprintf(pid, sizeof pid, "_%d_", (int)getpid());
  size_t pl = strlen(pid);
  return (size_t)(d - base) >= pl && strncmp(d - pl, pid, pl) == 0;
}

static void *adaptor_handles[4];
static int nadaptor;

/* The adaptor's libraries (ICSIM_ABI_LIBS, colon-separated paths), loaded before the first copy of
 * the program: the program's DT_NEEDED libmpich.so.12 then binds to the one already loaded with that
 * soname, whatever LD_LIBRARY_PATH says (smpirun puts the system's library folder first). Loaded
 * RTLD_LOCAL: their MPI_* stay out of the simulator's global scope; RTLD_DEEPBIND: the Fortran
 * library's calls reach the C adaptor, not SMPI's MPI_* of the global scope. */
static void preload_adaptor(void)
{
  static int done;
  const char *libs = getenv("ICSIM_ABI_LIBS");
  if (done || !libs)
    return;
  done = 1;
  static void *(*real_dlopen)(const char *, int);
  if (!real_dlopen)
    real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  char *copy = strdup(libs);
  for (char *p = strtok(copy, ":"); p; p = strtok(NULL, ":"))
    if (nadaptor < 4 && !(adaptor_handles[nadaptor++] = real_dlopen(p, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND))) {
      nadaptor--;
      fprintf(stderr, "icsim: MPI adaptor: cannot load %s: %s\n", p, dlerror());
    }
  free(copy);
}

/* Where the data object NAME that a program copies (a copy relocation) really lives: the adaptor's
 * libraries first (Open MPI's predefined objects), then what the simulator's process uses (libc's
 * stdout, stderr, environ, ...). */
static void *copy_source(const char *name)
{
  for (int i = 0; i < nadaptor; i++) {
    void *p = dlsym(adaptor_handles[i], name);
    if (p)
      return p;
  }
  return dlsym(RTLD_DEFAULT, name);
}

/* The program's read-only-after-relocation range (PT_GNU_RELRO), where the copies of constant data
 * live (MPICH's `int *const MPI_UNWEIGHTED`): glibc has made it read-only by the time dlopen returns. */
static void relro_range(const struct link_map *lm, uintptr_t *lo, uintptr_t *hi)
{
  *lo = *hi = 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)lm->l_addr;
  if (!lm->l_addr || memcmp(eh->e_ident, ELFMAG, SELFMAG))
    return;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(lm->l_addr + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_GNU_RELRO) {
      *lo = lm->l_addr + ph[i].p_vaddr;
      *hi = *lo + ph[i].p_memsz;
    }
}

/* Copy SIZE bytes to DEST, which may lie in the read-only range [LO, HI): opened for the copy. */
static void copy_into(void *dest, const void *src, size_t size, uintptr_t lo, uintptr_t hi)
{
  uintptr_t d = (uintptr_t)dest;
  if (d + size <= lo || d >= hi) {
    memcpy(dest, src, size);
    return;
  }
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t start = d & ~(uintptr_t)(pg - 1), end = (d + size + pg - 1) & ~(uintptr_t)(pg - 1);
  if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE) != 0)
    return; /* left as loaded rather than crash */
  memcpy(dest, src, size);
  mprotect((void *)start, end - start, PROT_READ);
}

/* Redo the program copy's copy relocations. glibc leaves them unfilled when it loads an executable
 * with dlopen (stdout, stderr, optarg read as NULL): copy each object from where it lives now. */
static void redo_copy_relocations(struct link_map *lm)
{
  const Elf64_Rela *rela = NULL;
  const Elf64_Sym *symtab = NULL;
  const char *strtab = NULL;
  size_t relasz = 0;
  for (const Elf64_Dyn *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
    uintptr_t v = d->d_un.d_ptr < lm->l_addr ? d->d_un.d_ptr + lm->l_addr : d->d_un.d_ptr;
    switch (d->d_tag) {
    case DT_RELA: rela = (const Elf64_Rela *)v; break;
    case DT_RELASZ: relasz = d->d_un.d_val; break;
    case DT_SYMTAB: symtab = (const Elf64_Sym *)v; break;
    case DT_STRTAB: strtab = (const char *)v; break;
    default: break;
    }
  }
  if (!rela || !symtab || !strtab)
    return;
  uintptr_t relro_lo, relro_hi;
  relro_range(lm, &relro_lo, &relro_hi);
  for (size_t i = 0; i < relasz / sizeof *rela; i++) {
    if (ELF64_R_TYPE(rela[i].r_info) != R_X86_64_COPY)
      continue;
    const Elf64_Sym *sym = &symtab[ELF64_R_SYM(rela[i].r_info)];
    void *dest = (void *)(lm->l_addr + rela[i].r_offset);
    const char *name = strtab + sym->st_name;
    /* getopt's state starts afresh in each rank (another rank may already have parsed its options) */
    static const struct { const char *name; int value; } fresh[] = {{"optind", 1}, {"opterr", 1}, {"optopt", '?'}};
    int done = 0;
    for (size_t k = 0; k < sizeof fresh / sizeof fresh[0]; k++)
      if (!strcmp(name, fresh[k].name) && sym->st_size == sizeof(int)) {
        memcpy(dest, &fresh[k].value, sizeof(int));
        done = 1;
      }
    if (done || !strcmp(name, "optarg"))
      continue; /* optarg: NULL, as loaded */
    void *src = copy_source(name);
    if (src && src != dest)
      copy_into(dest, src, sym->st_size, relro_lo, relro_hi);
  }
}

/* The program's libraries that call MPI (ICSIM_ABI_PRIVATE: "NAME=PATH" joined by ':', each after
 * those it needs; icsim run reads them from the program's dependency tree). On a real cluster each
 * process has its own copy of ScaLAPACK's or PETSc's globals (BLACS contexts, communicator caches);
 * in SMPI every rank lives in one process, where one loaded library would be shared by all. Each
 * rank gets its own copy, as SMPI's smpi/privatize-libs does, but
 *   - the copy is written beside the program's copy, named for the rank (same length: strings are
 *     patched in place) in its own DT_SONAME and in the DT_NEEDED of the program's copy and of the
 *     other copies, so that ld.so, loading the program's copy, finds this rank's copies by name in
 *     that folder (smpirun puts it first on LD_LIBRARY_PATH);
 *   - the copies are loaded as the program's dependencies, not on their own: SMPI loads the program
 *     with RTLD_DEEPBIND, so they look symbols up in the program's own tree first, as in a process
 *     of its own: their MPI_* bind to the adaptor (not to SimGrid's MPI_* of the process's global
 *     scope), and the program's definitions interpose on theirs (ScaLAPACK's testers define their
 *     own PJLAENV: loaded with RTLD_DEEPBIND of their own, the copies took their built-in one and
 *     PDSYTTRD refused the testers' workspace in 24 of xdtrd's tests);
 *   - libraries of libraries are handled, in the order given. */
struct private_lib {
  char *name, *path;
};
static struct private_lib *plibs;
static int nplibs;

static void parse_private_libs(void)
{
  static int done;
  const char *env = getenv("ICSIM_ABI_PRIVATE");
  if (done || !env)
    return;
  done = 1;
  char *copy = strdup(env);
  for (char *p = strtok(copy, ":"); p; p = strtok(NULL, ":")) {
    char *eq = strchr(p, '=');
    if (!eq)
      continue;
    plibs = realloc(plibs, (size_t)(nplibs + 1) * sizeof *plibs);
    plibs[nplibs].name = strndup(p, (size_t)(eq - p));
    plibs[nplibs].path = strdup(eq + 1);
    nplibs++;
  }
  free(copy);
}

/* Rank R's name for private library I: as long as its own, "@" + 4 base-36 digits of R + 2 of I in
 * place of its first 7 characters (icsim run refuses names shorter than 8). */
static void private_name(int i, int r, char *out, size_t cap)
{
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  snprintf(out, cap, "%s", plibs[i].name);
  out[0] = '@';
  for (int k = 4; k >= 1; k--, r /= 36)
    out[k] = digits[r % 36];
  out[5] = digits[(i / 36) % 36];
  out[6] = digits[i % 36];
}

static void die(const char *what, const char *file)
{
  fprintf(stderr, "icsim: MPI adaptor: %s %s: %s\n", what, file, errno ? strerror(errno) : "not an ELF library");
  _exit(2);
}

/* Patch FILE's dynamic strings in place: every DT_NEEDED equal to FROM[k] becomes TO[k] (same
 * length); its DT_SONAME becomes SONAME when given; DF_1_PIE is cleared when CLEAR_PIE. */
static void patch_dynamic(const char *file, char *const *from, char *const *to, int n, const char *soname,
                          int clear_pie)
{
  int fd = open(file, O_RDWR);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0)
    die("cannot open", file);
  unsigned char *m = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    die("cannot map", file);
  errno = 0;
  size_t size = (size_t)sb.st_size;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
  if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(Elf64_Phdr) ||
      eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
    die("cannot read", file);
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + eh->e_phoff);
  Elf64_Dyn *dyn = NULL;
  size_t ndyn = 0;
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC && ph[i].p_offset + ph[i].p_filesz <= size) {
      dyn = (Elf64_Dyn *)(m + ph[i].p_offset);
      ndyn = ph[i].p_filesz / sizeof *dyn;
    }
  uint64_t strtab = 0, stroff = 0, strsz = 0;
  int found = 0;
  for (size_t k = 0; k < ndyn && dyn[k].d_tag != DT_NULL; k++) {
    if (dyn[k].d_tag == DT_STRTAB)
      strtab = dyn[k].d_un.d_ptr;
    else if (dyn[k].d_tag == DT_STRSZ)
      strsz = dyn[k].d_un.d_val;
    else if (clear_pie && dyn[k].d_tag == DT_FLAGS_1)
      dyn[k].d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
  }
  for (int i = 0; i < eh->e_phnum && !found; i++)
    if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr && strtab - ph[i].p_vaddr < ph[i].p_filesz) {
      stroff = strtab - ph[i].p_vaddr + ph[i].p_offset;
      found = 1;
    }
  if (!found || stroff + strsz > size)
    die("cannot read the dynamic strings of", file);
  char *str = (char *)m + stroff;
  for (size_t k = 0; k < ndyn && dyn[k].d_tag != DT_NULL; k++) {
    if (dyn[k].d_un.d_val >= strsz)
      continue;
    char *s = str + dyn[k].d_un.d_val;
    size_t room = strnlen(s, strsz - dyn[k].d_un.d_val);
    if (dyn[k].d_tag == DT_SONAME && soname) {
      if (strlen(soname) != room) {
        fprintf(stderr, "icsim: MPI adaptor: library %s names itself %.*s, not as its users need it (%s): cannot "
                        "give each rank its own copy\n", file, (int)room, s, soname);
        _exit(2);
      }
      memcpy(s, soname, room);
    } else if (dyn[k].d_tag == DT_NEEDED)
      for (int j = 0; j < n; j++)
        if (room == strlen(from[j]) && !memcmp(s, from[j], room)) {
          memcpy(s, to[j], room);
          break;
        }
  }
  munmap(m, size);
}

static void copy_file(const char *from, const char *to)
{
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0700);
  if (out < 0 && errno == EEXIST && unlink(to) == 0) /* left by a run that was killed: `icsim run` gives each
                                                       * run a folder of its own, a pasted smpirun shares $TMPDIR */
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0700);
  if (in < 0)
    die("cannot read", from);
  if (out < 0)
    die("cannot write", to);
  char buf[1 << 16];
  ssize_t got;
  while ((got = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)got) != got)
      die("cannot write", to);
  if (got < 0 || close(out) != 0)
    die("cannot write", to);
  close(in);
}

/* The files of the rank's copies, removed once the program's copy is loaded: until then ld.so may
 * look for them, by name, in the folder of the program's copy, which smpirun puts first on
 * LD_LIBRARY_PATH (a library without DT_SONAME cannot be matched to its loaded copy by name). */
static char (*copies)[4096];

static void remove_copies(void)
{
  for (int i = 0; i < nplibs && copies; i++)
    if (copies[i][0]) {
      unlink(copies[i]);
      copies[i][0] = '\0';
    }
}

/* Before SMPI loads PROGRAM (its copy for the next rank): load this rank's copies of the private
 * libraries and make the program's copy need them. */
static void load_private_libs(const char *program)
{
  static int rank; /* SMPI loads one copy per rank, in rank order */
  parse_private_libs();
  char **names = calloc((size_t)nplibs + 1, sizeof *names), **orig = calloc((size_t)nplibs + 1, sizeof *orig);
  for (int i = 0; i < nplibs; i++) {
    names[i] = malloc(strlen(plibs[i].name) + 1);
    private_name(i, rank, names[i], strlen(plibs[i].name) + 1);
    orig[i] = plibs[i].name;
  }
  const char *slash = strrchr(program, '/');
  int dirlen = slash ? (int)(slash - program) : 1;
  if (!copies)
    copies = calloc((size_t)nplibs + 1, sizeof *copies);
  /* ld.so finds the copies by name in the program copy's folder: it must be on LD_LIBRARY_PATH */
  const char *lp = getenv("LD_LIBRARY_PATH");
  int found = 0;
  for (const char *p = lp; nplibs && p && *p && !found;) {
    size_t n = strcspn(p, ":");
    found = (int)n == dirlen && !strncmp(p, program, n);
    p += n + (p[n] == ':');
  }
  if (nplibs && !found) {
    fprintf(stderr, "icsim: MPI adaptor: SMPI's folder for program copies, %.*s, is not on LD_LIBRARY_PATH, so the "
                    "ranks' copies of the program's MPI libraries cannot be found; run through `icsim run`, or "
                    "keep smpirun's -tmpdir and LD_LIBRARY_PATH as it sets them\n", dirlen, program);
    _exit(2);
  }
  for (int i = 0; i < nplibs; i++) {
    char target[4096];
    snprintf(target, sizeof target, "%.*s/%s", dirlen, slash ? program : ".", names[i]);
    copy_file(plibs[i].path, target);
    patch_dynamic(target, orig, names, nplibs, names[i], 0);
    snprintf(copies[i], sizeof copies[i], "%s", target);
  }
  patch_dynamic(program, orig, names, nplibs, NULL, 1);
  for (int i = 0; i < nplibs; i++)
    free(names[i]);
  free(names);
  free(orig);
  rank++;
}

static struct link_map *last_program; /* the copy SMPI loaded last: the rank about to start */

void *dlopen(const char *file, int mode)
{
  static void *(*real_dlopen)(const char *, int);
  if (!real_dlopen)
    real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  int copy = file && is_smpi_copy(file);
  if (copy) {
    preload_adaptor();
    load_private_libs(file); /* clears DF_1_PIE too */
  }
  void *h = real_dlopen(file, mode);
  if (copy)
    remove_copies();
  if (h && copy && dlinfo(h, RTLD_DI_LINKMAP, &last_program) == 0)
    redo_copy_relocations(last_program);
  return h;
}

/* The program's main, from its start code: x86-64 glibc's _start loads main's address into %rdi
 * either with `lea main(%rip),%rdi` (48 8d 3d disp32) or, since glibc 2.34, from the GOT with
 * `mov main@GOTPCREL(%rip),%rdi` (48 8b 3d disp32), then calls __libc_start_main. */
void *icsim_abi_program_main(void)
{
  if (!last_program)
    return NULL;
  const unsigned char *base = (const unsigned char *)last_program->l_addr;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_entry == 0)
    return NULL;
  const unsigned char *p = base + eh->e_entry;
  for (int i = 0; i < 64; i++) {
    if (p[i] == 0x48 && (p[i + 1] == 0x8d || p[i + 1] == 0x8b) && p[i + 2] == 0x3d) {
      int32_t disp;
      memcpy(&disp, p + i + 3, 4);
      const unsigned char *target = p + i + 7 + disp;
      return p[i + 1] == 0x8d ? (void *)target : *(void *const *)target;
    }
  }
  return NULL;
}

/* exit() inside a rank ends that rank alone, as in a real MPI where each rank is a process: the
 * adaptor's exit (bind.c, the layer's smpi_exit). The program's own calls find the adaptor's, but a
 * Fortran STOP reaches exit from libgfortran, loaded with SimGrid in the process's global scope,
 * where this preloaded library comes before libc: without this, ScaLAPACK's testers (BLACS_EXIT,
 * then STOP) ended the whole simulation when the first rank stopped, before rank 0 printed its
 * summary. Outside a rank (smpirun's own end, the programs smpirun's script runs) it is libc's. */
void exit(int status)
{
  static void *(*self)(void);
  static int looked;
  if (!looked) {
    looked = 1;
    self = (void *(*)(void))dlsym(RTLD_DEFAULT, "sg_actor_self");
  }
  if (nadaptor && self && self()) {
    void (*rank_exit)(int) = (void (*)(int))dlsym(adaptor_handles[0], "exit");
    if (rank_exit && rank_exit != exit)
      rank_exit(status);
  }
  void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
  real(status);
  _exit(status); /* not reached */
}
