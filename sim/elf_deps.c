/* The dependency tree of an ELF program as glibc's ld.so resolves it (elf_deps.h). Breadth first,
 * as ld.so loads: each DT_NEEDED name is searched once; a later object naming it gets the object
 * already found. Files are read with pread through their program headers (what ld.so itself
 * reads), every size checked against the file: a damaged library is a leaf, never a crash. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_deps.h"

struct dyn_info {
  char **needed;
  int nneeded;
  char *rpath, *runpath; /* NULL when absent */
};

static void dyn_info_free(struct dyn_info *d)
{
  for (int i = 0; i < d->nneeded; i++)
    free(d->needed[i]);
  free(d->needed);
  free(d->rpath);
  free(d->runpath);
  memset(d, 0, sizeof *d);
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
  return off <= (uint64_t)INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The file offset of virtual address V, through the PT_LOAD headers. */
static int vaddr_to_off(const Elf64_Phdr *ph, int n, uint64_t v, uint64_t *off)
{
  for (int i = 0; i < n; i++)
    if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr && v - ph[i].p_vaddr < ph[i].p_filesz) {
      *off = v - ph[i].p_vaddr + ph[i].p_offset;
      return 0;
    }
  return -1;
}

/* DT_NEEDED, DT_RPATH and DT_RUNPATH of FILE (an x86-64 ELF64). Returns 0, or -1 when FILE is not
 * one that ld.so would load. */
static int read_dyn(const char *file, struct dyn_info *d)
{
  memset(d, 0, sizeof *d);
  /* non-blocking: a library path that is a FIFO is refused below (not S_ISREG), never waited on */
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return -1;
  struct stat sb;
  Elf64_Ehdr eh;
  Elf64_Phdr *ph = NULL;
  Elf64_Dyn *dyn = NULL;
  char *str = NULL;
  int rc = -1;
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || pread_all(fd, &eh, sizeof eh, 0) ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 1024)
    goto out;
  ph = calloc(eh.e_phnum, sizeof *ph);
  if (!ph || pread_all(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff))
    goto out;
  int di = -1;
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC)
      di = i;
  if (di < 0) { /* static: nothing needed */
    rc = 0;
    goto out;
  }
  size_t ndyn = ph[di].p_filesz / sizeof(Elf64_Dyn);
  if (ndyn == 0 || ndyn > 65536 || ph[di].p_offset + ph[di].p_filesz > (uint64_t)sb.st_size)
    goto out;
  dyn = calloc(ndyn, sizeof *dyn);
  if (!dyn || pread_all(fd, dyn, ndyn * sizeof *dyn, ph[di].p_offset))
    goto out;
  uint64_t strtab = 0, strsz = 0, stroff = 0;
  for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
    if (dyn[i].d_tag == DT_STRTAB)
      strtab = dyn[i].d_un.d_ptr;
    else if (dyn[i].d_tag == DT_STRSZ)
      strsz = dyn[i].d_un.d_val;
  }
  if (!strsz || strsz > (16u << 20) || vaddr_to_off(ph, eh.e_phnum, strtab, &stroff) ||
      stroff + strsz > (uint64_t)sb.st_size)
    goto out;
  str = malloc(strsz + 1);
  if (!str || pread_all(fd, str, strsz, stroff))
    goto out;
  str[strsz] = '\0';
  for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
    uint64_t v = dyn[i].d_un.d_val;
    if (v >= strsz)
      continue;
    if (dyn[i].d_tag == DT_NEEDED) {
      char **grown = realloc(d->needed, (size_t)(d->nneeded + 1) * sizeof *grown);
      if (!grown)
        goto out;
      d->needed = grown;
      d->needed[d->nneeded++] = strdup(str + v);
    } else if (dyn[i].d_tag == DT_RPATH && !d->rpath)
      d->rpath = strdup(str + v);
    else if (dyn[i].d_tag == DT_RUNPATH && !d->runpath)
      d->runpath = strdup(str + v);
  }
  rc = 0;
out:
  if (rc)
    dyn_info_free(d);
  free(ph);
  free(dyn);
  free(str);
  close(fd);
  return rc;
}

/* ld.so.cache (glibc 2.32+ format, "glibc-ld.so.cache1.1"): the x86-64 entry for NAME, malloc'ed,
 * or NULL. The file is read once. */
static char *cache_lookup(const char *name)
{
  static char *cache;
  static size_t size;
  static int read_done;
  if (!read_done) {
    read_done = 1;
    FILE *f = fopen("/etc/ld.so.cache", "rb");
    if (f) {
      if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 48 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 && (cache = malloc((size_t)n)) &&
            fread(cache, 1, (size_t)n, f) == (size_t)n)
          size = (size_t)n;
      }
      fclose(f);
    }
    if (!size || memcmp(cache, "glibc-ld.so.cache1.1", 20)) { /* older formats: the folders only */
      free(cache);
      cache = NULL;
      size = 0;
    }
  }
  if (!cache)
    return NULL;
  uint32_t nlibs;
  memcpy(&nlibs, cache + 20, 4);
  const size_t header = 48, entry = 24;
  for (uint32_t i = 0; i < nlibs && header + (size_t)(i + 1) * entry <= size; i++) {
    const char *e = cache + header + (size_t)i * entry;
    int32_t flags;
    uint32_t key, value;
    memcpy(&flags, e, 4);
    memcpy(&key, e + 4, 4);
    memcpy(&value, e + 8, 4);
    /* FLAG_ELF_LIBC6 (3) with FLAG_X8664_LIB64 (0x0300) */
    if ((flags & 0xff) != 3 || (flags & 0xff00) != 0x0300 || key >= size || value >= size)
      continue;
    if (strnlen(cache + key, size - key) < size - key && !strcmp(cache + key, name) &&
        strnlen(cache + value, size - value) < size - value)
      return strdup(cache + value);
  }
  return NULL;
}

/* DIR with $ORIGIN / ${ORIGIN} replaced by ORIGIN (the folder of the object whose path list it is). */
static void expand_origin(const char *dir, size_t len, const char *origin, char *out, size_t cap)
{
  size_t o = 0;
  for (size_t i = 0; i < len && o + 1 < cap;) {
    size_t skip = !strncmp(dir + i, "${ORIGIN}", 9) && i + 9 <= len ? 9
                  : !strncmp(dir + i, "$ORIGIN", 7) && i + 7 <= len ? 7
                                                                    : 0;
    if (skip) {
      o += (size_t)snprintf(out + o, cap - o, "%s", origin);
      if (o >= cap)
        o = cap - 1;
      i += skip;
    } else
      out[o++] = dir[i++];
  }
  out[o] = '\0';
}

/* NAME in the colon-separated folders LIST: the first file ld.so would open (an x86-64 ELF). */
static char *search_list(const char *name, const char *list, const char *origin)
{
  if (!list)
    return NULL;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ":;");
    char dir[PATH_MAX], file[PATH_MAX];
    expand_origin(p, len, origin, dir, sizeof dir);
    if ((size_t)snprintf(file, sizeof file, "%s/%s", dir[0] ? dir : ".", name) < sizeof file) {
      struct dyn_info d;
      if (read_dyn(file, &d) == 0) {
        dyn_info_free(&d);
        return strdup(file);
      }
    }
    p += len;
    if (*p)
      p++;
  }
  return NULL;
}

static char *dir_of(const char *path)
{
  char real[PATH_MAX];
  const char *use = realpath(path, real) ? real : path;
  const char *slash = strrchr(use, '/');
  return slash ? strndup(use, (size_t)(slash - use) ? (size_t)(slash - use) : 1) : strdup(".");
}

/* Where ld.so finds NAME needed by object I of T (whose dynamic info is DI, an array by object). */
static char *resolve(const char *name, const struct elf_tree *t, const struct dyn_info *di, int i,
                     const char *library_path)
{
  if (strchr(name, '/')) {
    struct dyn_info d;
    if (read_dyn(name, &d))
      return NULL;
    dyn_info_free(&d);
    return strdup(name);
  }
  char *found = NULL;
  /* DT_RPATH of the object, then of the objects that loaded it, unless it has DT_RUNPATH */
  if (!di[i].runpath)
    for (int k = i; k >= 0 && !found; k = t->obj[k].parent)
      if (di[k].rpath && t->obj[k].path) {
        char *origin = dir_of(t->obj[k].path);
        found = search_list(name, di[k].rpath, origin);
        free(origin);
      }
  if (!found)
    found = search_list(name, library_path, ".");
  if (!found && di[i].runpath && t->obj[i].path) {
    char *origin = dir_of(t->obj[i].path);
    found = search_list(name, di[i].runpath, origin);
    free(origin);
  }
  if (!found)
    found = cache_lookup(name);
  if (!found)
    found = search_list(name, "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib:/usr/lib", ".");
  return found;
}

int elf_tree_read(const char *program, const char *library_path, int (*stop)(const char *name),
                  struct elf_tree *t, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  struct dyn_info *di = calloc(ELF_TREE_MAX, sizeof *di);
  t->obj = calloc(ELF_TREE_MAX, sizeof *t->obj);
  if (!di || !t->obj) {
    free(di);
    free(t->obj);
    t->obj = NULL;
    snprintf(err, errlen, "out of memory reading the libraries of %s", program);
    return -1;
  }
  if (read_dyn(program, &di[0])) {
    free(di);
    free(t->obj);
    t->obj = NULL;
    snprintf(err, errlen, "program %s: cannot read its dynamic section", program);
    return -1;
  }
  t->obj[0] = (struct elf_obj){strdup(program), strdup(program), -1, NULL, 0, 0};
  t->n = 1;
  for (int i = 0; i < t->n; i++) { /* breadth first: t->n grows as names are found */
    if (t->obj[i].leaf)
      continue;
    t->obj[i].needs = calloc((size_t)di[i].nneeded + 1, sizeof(int));
    for (int k = 0; k < di[i].nneeded; k++) {
      const char *name = di[i].needed[k];
      int j = 0;
      while (j < t->n && strcmp(t->obj[j].name, name))
        j++;
      if (j == t->n) {
        if (t->n == ELF_TREE_MAX)
          continue;
        struct elf_obj *o = &t->obj[t->n];
        *o = (struct elf_obj){strdup(name), NULL, i, NULL, 0, 0};
        o->path = resolve(name, t, di, i, library_path);
        o->leaf = (stop && stop(name)) || !o->path;
        if (!o->leaf && read_dyn(o->path, &di[t->n]))
          o->leaf = 1;
        t->n++;
      }
      t->obj[i].needs[t->obj[i].nneeds++] = j;
    }
  }
  for (int i = 0; i < t->n; i++)
    dyn_info_free(&di[i]);
  free(di);
  return 0;
}

void elf_tree_free(struct elf_tree *t)
{
  for (int i = 0; i < t->n; i++) {
    free(t->obj[i].name);
    free(t->obj[i].path);
    free(t->obj[i].needs);
  }
  free(t->obj);
  memset(t, 0, sizeof *t);
}
