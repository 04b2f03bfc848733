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
#include "paths.h"

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

int check_program(const char *path, char *err, size_t errlen)
{
  static const char rebuild[] = "rebuild it from its sources with " ICSIM_BINDIR "/icsimcc (" ICSIM_BINDIR
                                "/icsimff for Fortran), used like mpicc";
  FILE *f = icsim_input_fopen("program", path, err, errlen); /* a regular file only (paths.h) */
  if (!f)
    return -1;
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  size_t got = fread(&eh, 1, sizeof eh, f);
  struct elf_facts ef = {0};
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
  else if (!ef.dynamic || (!ef.simgrid && !ef.layer)) /* the layer brings SimGrid with it */
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
  fclose(f);
  return rc;
}
