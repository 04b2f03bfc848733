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
#include <sys/mman.h>
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

/* Clear DF_1_PIE in the DT_FLAGS_1 entry of FILE's dynamic segment. */
static void clear_pie_flag(const char *file)
{
  int fd = open(file, O_RDWR);
  if (fd < 0)
    return;
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    close(fd);
    return;
  }
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof ph)) != (ssize_t)sizeof ph)
      break;
    if (ph.p_type != PT_DYNAMIC)
      continue;
    for (Elf64_Off off = 0; off + sizeof(Elf64_Dyn) <= ph.p_filesz; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      if (pread(fd, &d, sizeof d, (off_t)(ph.p_offset + off)) != (ssize_t)sizeof d || d.d_tag == DT_NULL)
        break;
      if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE)) {
        d.d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
        if (pwrite(fd, &d, sizeof d, (off_t)(ph.p_offset + off)) != (ssize_t)sizeof d)
          break;
      }
    }
  }
  close(fd);
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

static struct link_map *last_program; /* the copy SMPI loaded last: the rank about to start */

void *dlopen(const char *file, int mode)
{
  static void *(*real_dlopen)(const char *, int);
  if (!real_dlopen)
    real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  int copy = file && is_smpi_copy(file);
  if (copy) {
    clear_pie_flag(file);
    preload_adaptor();
  }
  void *h = real_dlopen(file, mode);
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
