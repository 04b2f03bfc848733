#!/usr/bin/env python3
"""Generate the MPI-Adaptor's translation functions from one table (spec/functions.spec).

For each ABI (spec/mpich.abi: integer handles; spec/ompi.abi: pointer handles) it writes
  tables_ABI.c     the ABI's data: predefined handles (and, for pointer ABIs, the objects they
                   point to), constants, error codes, the names of the translated functions and
                   the function table bind.c fills; data only, at the bottom of the adaptor's order
                   (adaptor.h), so every file may name it;
  wrappers_ABI.c   every translated MPI_* (and its PMPI_* alias): arguments converted ABI -> SMPI,
                   the call made through the function table into the icsim MPI layer, results
                   converted back; every other MPI function of the standard as a stub that stops
                   the run ("MPI_Foo is not translated by the adaptor"); the top of the order:
                   nothing in the library calls it.
and, once,
  target_tables.c  SMPI's side (compiled against SimGrid's mpi.h): predefined handles by name,
                   special values, error codes; at the bottom like tables_ABI.c;
  abi_calls.c      per translated function, the conversions it makes (handles, statuses, return
                   code) and datatypes it looks up: what the abi stack charges per call (model.c).

usage: gen_adaptor.py SPEC_DIR SMPI_H OUT_DIR
"""
import os
import re
import sys

# the handle kinds whose MPI_<Kind>_c2f / _f2c adaptor/fint_*.c defines
FINT_KINDS = ["Comm", "Type", "Group", "Op", "Request", "Errhandler", "Info", "Win"]
HANDLE_KINDS = ["comm", "datatype", "group", "op", "request", "errhandler", "info", "win", "message"]
AK = {k: "AK_" + k.upper() for k in HANDLE_KINDS}
ATYPE = {k: "A_" + k.capitalize() for k in HANDLE_KINDS}

# Constants both ABIs define and SMPI knows, translated by value (adaptor.h: enum abi_const).
CONSTS = ["MPI_ANY_SOURCE", "MPI_PROC_NULL", "MPI_ROOT", "MPI_ANY_TAG", "MPI_UNDEFINED", "MPI_KEYVAL_INVALID",
          "MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL", "MPI_TAG_UB", "MPI_HOST", "MPI_IO",
          "MPI_WTIME_IS_GLOBAL", "MPI_UNIVERSE_SIZE", "MPI_LASTUSEDCODE", "MPI_APPNUM", "MPI_MODE_NOCHECK",
          "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED", "MPI_LOCK_EXCLUSIVE",
          "MPI_LOCK_SHARED", "MPI_ORDER_C", "MPI_ORDER_FORTRAN", "MPI_TYPECLASS_REAL", "MPI_TYPECLASS_INTEGER",
          "MPI_TYPECLASS_COMPLEX", "MPI_GRAPH", "MPI_CART", "MPI_DIST_GRAPH", "MPI_WIN_BASE", "MPI_WIN_SIZE",
          "MPI_WIN_DISP_UNIT", "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL", "MPI_WIN_FLAVOR_CREATE",
          "MPI_WIN_FLAVOR_ALLOCATE", "MPI_WIN_FLAVOR_DYNAMIC", "MPI_WIN_FLAVOR_SHARED", "MPI_WIN_SEPARATE",
          "MPI_WIN_UNIFIED"]
# constants SMPI's mpi.h gives as enumerators, not macros (no #ifdef for them)
ENUM_CONSTS = {"MPI_GRAPH", "MPI_CART", "MPI_DIST_GRAPH"}


def die(msg):
    sys.stderr.write("gen_adaptor.py: " + msg + "\n")
    sys.exit(1)


def read_spec(path):
    funcs = []
    for ln, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(int|double|aint)\s+(MPI_\w+)\((.*)\)", line)
        if not m:
            die("%s:%d: cannot read this line; write `int MPI_Name(kind arg, ...)`" % (path, ln))
        ret, name, args = m.group(1), m.group(2), m.group(3).strip()
        params = []
        for a in [x.strip() for x in args.split(",")] if args else []:
            am = re.fullmatch(r"(\w+)(?:\[(\w+)\])?\s+(\w+)", a)
            if not am:
                die("%s:%d: argument '%s': write `kind name` or `kind[count] name`" % (path, ln, a))
            params.append((am.group(1), am.group(2), am.group(3)))
        funcs.append((ret, name, params, ln))
    return funcs


def read_abi(path):
    handles, consts, errs = [], {}, {}
    for ln, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        f = line.split()
        if f[0] == "handle" and len(f) >= 4:
            handles.append((f[1], f[2], f[3], f[4] if len(f) > 4 else None))
        elif f[0] == "const" and len(f) == 3:
            consts[f[1]] = f[2]
        elif f[0] == "err" and len(f) == 3:
            errs[f[1]] = f[2]
        else:
            die("%s:%d: cannot read this line" % (path, ln))
    for k, _, _, _ in handles:
        if k not in HANDLE_KINDS:
            die("%s: unknown handle kind %s" % (path, k))
    return handles, consts, errs


def smpi_errors(smpi_h):
    text = open(smpi_h).read()
    m = re.search(r"#define FOREACH_ERROR\(ERROR\)(.*?)\n\s*\n", text, re.S)
    if not m:
        die("%s: no FOREACH_ERROR list (SimGrid's error codes)" % smpi_h)
    return re.findall(r"ERROR\((\w+)\)", m.group(1))


# --- C types and conversion code for each argument kind ------------------------------------------

PASS = {"int": "int", "aint": "MPI_Aint", "count": "MPI_Count", "offset": "MPI_Offset", "ptr": "void *",
        "cstr": "const char *", "str_out": "char *", "int_out": "int *", "aint_out": "MPI_Aint *",
        "count_out": "MPI_Count *", "ptr_out": "void **", "int_arr": "const int *", "int_arr_out": "int *",
        "aint_arr": "const MPI_Aint *", "aint_arr_out": "MPI_Aint *", "argc": "int *", "argv": "char ***"}
VALUE_IN = {"rank": "abi_rank_in", "tag": "abi_tag_in", "undef": "abi_undef_in", "keyval": "abi_keyval_in",
            "assert": "abi_assert_in", "lock": "abi_lock_in", "order": "abi_order_in", "errorcode": "abi_err_in",
            "typeclass": "abi_typeclass_in"}
VALUE_OUT = {"undef_out": "abi_undef_out", "compare_out": "abi_compare_out", "rank_out": "abi_rank_out",
             "topo_out": "abi_topo_out",
             "errorcode_out": "abi_rc_out"}


# attribute callback kinds: (the object's handle kind, 1 for a copy function, 0 for a delete function)
ATTR_FN = {"comm_copy_fn": ("AK_COMM", 1), "comm_delete_fn": ("AK_COMM", 0), "type_copy_fn": ("AK_DATATYPE", 1),
           "type_delete_fn": ("AK_DATATYPE", 0), "win_copy_fn": ("AK_WIN", 1), "win_delete_fn": ("AK_WIN", 0)}


def split_kind(kind):
    for k in HANDLE_KINDS:
        if kind == k:
            return k, ""
        if kind.startswith(k + "_"):
            return k, kind[len(k) + 1:]
    return None, None


def gen_arg(kind, n, name, fname):
    """Returns (abi_decl, target_type, pre, call_expr, post, conversions, datatypes)."""
    if kind in PASS:
        return ("%s %s" % (PASS[kind], name), PASS[kind], [], name, [], 0, 0)
    if kind in ("buf", "rbuf"):
        c = "const " if kind == "buf" else ""
        return ("%svoid *%s" % (c, name), "%svoid *" % c, [], "abi_buf_in(%s)" % name, [], 0, 0)
    if kind in VALUE_IN:
        return ("int %s" % name, "int", [], "%s(%s)" % (VALUE_IN[kind], name), [], 0, 0)
    if kind in VALUE_OUT:
        return ("int *%s" % name, "int *", [], name, ["if (%s) *%s = %s(*%s);" % (name, name, VALUE_OUT[kind], name)],
                0, 0)
    if kind == "weights":  # MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY translated; a weight array passes as it is
        return ("const int *%s" % name, "const int *", [], "abi_weights_in(%s)" % name, [], 0, 0)
    if kind == "rank_arr":  # ranks in: MPI_PROC_NULL translated, in a copy
        pre = ["int *tr_%s = abi_rank_arr_in(%s, %s);" % (name, name, n)]
        return ("const int *%s" % name, "const int *", pre, "tr_%s" % name, ["abi_scratch_free(tr_%s);" % name], 0, 0)
    if kind == "rank_arr_out":  # ranks out: MPI_PROC_NULL and MPI_UNDEFINED translated
        return ("int *%s" % name, "int *", [], name,
                ["for (int i_ = 0; %s && i_ < %s; i_++) %s[i_] = abi_rank_out(%s[i_]);" % (name, n, name, name)], 0, 0)
    if kind == "undef_arr_out":
        return ("int *%s" % name, "int *", [], name,
                ["for (int i_ = 0; %s && i_ < %s; i_++) %s[i_] = abi_undef_out(%s[i_]);" % (name, n, name, name)], 0, 0)
    if kind == "status_out":
        # a call completing one request leaves MPI_ERROR as the program set it (the layer keeps the
        # field of the status it is given): start the copy from the program's own
        pre = ["t_status ts_%s;" % name,
               "if (!abi_is_status_ignore(%s)) ts_%s.MPI_ERROR = abi_err_in(%s->MPI_ERROR);" % (name, name, name)]
        call = "abi_is_status_ignore(%s) ? abi_t_status_ignore() : &ts_%s" % (name, name)
        post = ["if (!abi_is_status_ignore(%s)) abi_status_out(%s, &ts_%s);" % (name, name, name)]
        return ("A_Status *%s" % name, "t_status *", pre, call, post, 1, 0)
    if kind == "status_in":
        pre = ["t_status ts_%s;" % name, "abi_status_in(%s, &ts_%s);" % (name, name)]
        return ("const A_Status *%s" % name, "t_status *", pre, "&ts_%s" % name, [], 1, 0)
    if kind == "status_arr":
        pre = ["t_status *ts_%s = abi_is_status_ignore(%s) ? abi_t_status_ignore() : abi_scratch_status(%s);" %
               (name, name, n)]
        post = ["if (!abi_is_status_ignore(%s)) for (int i_ = 0; i_ < %s; i_++) abi_status_out(&%s[i_], &ts_%s[i_]);"
                % (name, n, name, name), "abi_scratch_free(ts_%s);" % name]
        return ("A_Status *%s" % name, "t_status *", pre, "ts_%s" % name, post, 1, 0)
    if kind in ("comm_errh_fn", "win_errh_fn"):  # the program's error handler: a trampoline (errhandlers.c)
        pre = ["void *tf_%s = abi_errh_trampoline((void *)%s, abi_op_caller_, %s, FID);"
               % (name, name, "AK_WIN" if kind == "win_errh_fn" else "AK_COMM")]
        return ("void *%s" % name, "void *", pre, "tf_%s" % name, [], 0, 0)
    if kind == "keyval_out":  # a key the call makes: shown to the program in its numbering
        return ("int *%s" % name, "int *", [], name,
                ["if (rc_ == T_SUCCESS && %s) *%s = abi_keyval_out(*%s);" % (name, name, name)], 0, 0)
    if kind == "keyval_inout":  # a key the call frees (and sets to MPI_KEYVAL_INVALID)
        pre = ["int tk_%s = %s ? abi_keyval_in(*%s) : 0;" % (name, name, name)]
        return ("int *%s" % name, "int *", pre, "%s ? &tk_%s : NULL" % (name, name),
                ["if (rc_ == T_SUCCESS && %s) *%s = abi_keyval_out(tk_%s);" % (name, name, name)], 0, 0)
    if kind in ATTR_FN:  # the program's attribute callback: SMPI calls attrs.c's for its kind
        pre = ["void *tf_%s = abi_attr_fn_in((void *)%s, %s, %d);" % (name, name, ATTR_FN[kind][0], ATTR_FN[kind][1])]
        return ("void *%s" % name, "void *", pre, "tf_%s" % name, [], 0, 0)
    if kind == "user_fn":  # a user-defined op's function: SMPI calls a trampoline (ops.c)
        pre = ["void *tf_%s = abi_op_trampoline((void *)%s, abi_op_caller_, FID);" % (name, name)]
        return ("void *%s" % name, "void *", pre, "tf_%s" % name, [], 0, 0)
    hk, mode = split_kind(kind)
    if hk is None:
        die("%s: unknown kind '%s'" % (fname, kind))
    A, K = ATYPE[hk], AK[hk]
    dt = 1 if hk == "datatype" else 0
    if mode == "":
        return ("%s %s" % (A, name), "void *", [], "abi_h_in(%s, %s, FID)" % (K, name), [], 1, dt)
    # A null pointer from the program stays null on the layer's side, whose entry checks report it
    # as MPI's error (MPI_ERR_ARG through the error handler) instead of the adaptor writing through it.
    if mode == "out":
        pre = ["void *th_%s = NULL;" % name]
        post = ["if (rc_ == T_SUCCESS && %s) *%s = abi_h_out(%s, th_%s);" % (name, name, K, name)]
        return ("%s *%s" % (A, name), "void **", pre, "%s ? &th_%s : NULL" % (name, name), post, 1, 0)
    if mode in ("free", "inout", "ptr"):
        pre = ["void *th_%s = %s ? abi_h_in(%s, *%s, FID) : NULL;" % (name, name, K, name)]
        if mode == "ptr":
            post = []
        else:
            pre.append("void *th0_%s = th_%s;" % (name, name))
            post = ["if (rc_ == T_SUCCESS && %s && th_%s != th0_%s) { abi_h_release(%s, *%s); *%s = abi_h_out(%s, th_%s); }"
                    % (name, name, name, K, name, name, K, name)]
        return ("%s *%s" % (A, name), "void **", pre, "%s ? &th_%s : NULL" % (name, name), post, 1, 0)
    if mode == "arr":
        pre = []
        if n == "commsize":  # as long as the communicator argument `comm` is large
            pre.append("int n_%s = abi_t_comm_size(abi_h_in(AK_COMM, comm, FID));" % name)
            n = "n_%s" % name
        elif n in ("outdegree", "indegree"):  # one per neighbour in `comm`'s topology
            pre.append("int n_%s = abi_t_neighbours(abi_h_in(AK_COMM, comm, FID), %d);" % (name, n == "outdegree"))
            n = "n_%s" % name
        pre += ["void **th_%s = abi_scratch_ptrs(%s);" % (name, n),
                "for (int i_ = 0; %s && i_ < %s; i_++) th_%s[i_] = abi_h_in(%s, %s[i_], FID);" % (name, n, name, K, name)]
        post = ["abi_scratch_free(th_%s);" % name]
        return ("const %s *%s" % (A, name), "void **", pre, "%s ? th_%s : NULL" % (name, name), post, 1, 0)
    if mode == "arr_inout":
        pre = ["void **th_%s = abi_scratch_ptrs(%s), **th0_%s = abi_scratch_ptrs(%s);" % (name, n, name, n),
               "for (int i_ = 0; i_ < %s; i_++) th0_%s[i_] = th_%s[i_] = abi_h_in(%s, %s[i_], FID);"
               % (n, name, name, K, name)]
        post = ["for (int i_ = 0; i_ < %s; i_++) if (th_%s[i_] != th0_%s[i_]) { abi_h_release(%s, %s[i_]); "
                "%s[i_] = abi_h_out(%s, th_%s[i_]); }" % (n, name, name, K, name, name, K, name),
                "abi_scratch_free(th_%s);" % name, "abi_scratch_free(th0_%s);" % name]
        return ("%s *%s" % (A, name), "void **", pre, "th_%s" % name, post, 1, 0)
    die("%s: unknown kind '%s'" % (fname, kind))


RET = {"int": ("int", "int"), "double": ("double", "double"), "aint": ("MPI_Aint", "MPI_Aint")}


def gen_wrapper(fid, ret, name, params):
    args = [gen_arg(k, n, a, name) for (k, n, a) in params]
    rtype = RET[ret][0]
    decl = ", ".join(a[0] for a in args) or "void"
    ttypes = ", ".join(a[1] for a in args) or "void"
    out = ["%s %s(%s)" % (rtype, name, decl), "{", "  enum { FID = %d };" % fid,
           "  ABI_CALLER(); /* who called: pointer ABIs give it its own copy of predefined objects */",
           "  abi_enter(FID);"]
    keymaker = name.endswith("_create_keyval") or name == "MPI_Keyval_create"
    if name in ("MPI_Op_create", "MPI_Comm_create_errhandler", "MPI_Win_create_errhandler") or keymaker:
        out.append("  const void *abi_op_caller_ = __builtin_return_address(0);")
    for a in args:
        out += ["  " + p for p in a[2]]
    call = "((%s (*)(%s))abi_fn[FID])(%s)" % (rtype, ttypes, ", ".join(a[3] for a in args))
    if ret == "int":
        out.append("  int rc_ = %s;" % call)
    else:
        out.append("  %s rc_ = %s;" % (rtype, call))
    if name == "MPI_Op_create":
        out.append("  abi_op_created(tf_function, rc_ == T_SUCCESS ? th_op : NULL);")
    if name == "MPI_Op_free":
        out.append("  if (rc_ == T_SUCCESS) abi_op_freed(th0_op);")
    if keymaker:  # the program's callbacks, found by the key SMPI hands them (attrs.c), before the key is translated
        kinds = dict((a, k) for (k, n, a) in params)
        out.append("  if (rc_ == T_SUCCESS && keyval) abi_attr_key_made(*keyval, (void *)copy_fn, (void *)delete_fn, %s, "
                   "abi_op_caller_);" % ATTR_FN[kinds["copy_fn"]][0])
    if name == "MPI_Win_get_attr":  # MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL: values in the program's numbering
        out.append("  if (rc_ == T_SUCCESS && flag && *flag && attribute_val) abi_win_attr_out(keyval, attribute_val);")
    if name in ("MPI_Comm_get_attr", "MPI_Attr_get"):  # MPI_LASTUSEDCODE: a code, in the program's numbering
        out.append("  if (rc_ == T_SUCCESS && flag && *flag && keyval == abi_a_const[C_LASTUSEDCODE] && attribute_val)"
                   " attribute_val = abi_lastused_out(attribute_val);")
    for a in args:
        out += ["  " + p for p in a[4]]
    out.append("  abi_leave();")
    out.append("  return %s;" % ("abi_rc_out(rc_)" if ret == "int" else "rc_"))
    out.append("}")
    out.append("%s P%s(%s) __attribute__((alias(\"%s\")));" % (rtype, name, decl, name))
    conv = sum(a[5] for a in args) + (1 if ret == "int" else 0)
    dts = sum(a[6] for a in args)
    return "\n".join(out), conv, dts


# Fortran (MPICH ABI): every argument by reference, handles the same integers as in C, a status the
# same five integers as C's MPI_Status; MPI_BOTTOM, MPI_IN_PLACE and MPI_STATUS(ES)_IGNORE are
# addresses in the program's common blocks (fortran.c recognises them). Each entry point calls the
# C entry point of libmpich.so.12, which converts and charges.
F_DEREF = {"int": "int", "rank": "int", "tag": "int", "undef": "int", "keyval": "int", "assert": "int", "lock": "int",
           "order": "int", "errorcode": "int", "typeclass": "int", "aint": "MPI_Aint", "count": "MPI_Count",
           "offset": "MPI_Offset"}
F_PTR = {"int_out": "int *", "undef_out": "int *", "compare_out": "int *", "rank_out": "int *", "rank_arr": "int *",
         "topo_out": "int *",
         "rank_arr_out": "int *",
         "errorcode_out": "int *", "int_arr": "int *", "int_arr_out": "int *", "undef_arr_out": "int *",
         "aint_out": "MPI_Aint *", "aint_arr": "MPI_Aint *", "aint_arr_out": "MPI_Aint *", "count_out": "MPI_Count *",
         "status_in": "A_Status *"}
F_SPECIAL = {"MPI_Init", "MPI_Init_thread", "MPI_Wtime", "MPI_Wtick"}


def f_arg(kind, name):
    if kind in F_DEREF:
        return "*(%s *)%s" % (F_DEREF[kind], name)
    if kind in F_PTR:
        return "(%s)%s" % (F_PTR[kind], name)
    if kind in ("buf", "rbuf"):
        return "abi_f_buf(%s, abi_caller_)" % name
    if kind == "status_out":
        return "abi_f_status(%s, abi_caller_)" % name
    if kind == "status_arr":
        return "abi_f_statuses(%s, abi_caller_)" % name
    if kind == "weights":
        return "abi_f_weights(%s, abi_caller_)" % name
    hk, mode = split_kind(kind)
    if hk is None:
        return None
    return "*(int *)%s" % name if mode == "" else "(int *)%s" % name


def gen_fortran(funcs, names, head):
    t = [head, '#include "abi_mpich.h"', '#include "fortran.h"', ""]
    done = set()
    for ret, name, params, _ in funcs:
        decl = ", ".join(gen_arg(k, n, a, name)[0] for (k, n, a) in params) or "void"
        t.append("%s %s(%s);" % (RET[ret][0], name, decl))
        if name in F_SPECIAL:
            continue
        call = [f_arg(k, a) for (k, n, a) in params]
        if ret != "int" or None in call:
            continue  # strings, C pointers: no Fortran binding here (the stub below stops the run)
        fname = name.lower() + "_"
        fargs = ", ".join(["void *%s" % a for (k, n, a) in params] + ["int *ierr"])
        t.append("void %s(%s)\n{\n  ABI_CALLER();\n  int rc_ = %s(%s);\n  if (ierr)\n    *ierr = rc_;\n}"
                 % (fname, fargs, name, ", ".join(call)))
        done.add(name)
    for n in names:
        if n not in done and n not in F_SPECIAL:
            t.append('void %s_(void) { abi_untranslated("%s (Fortran)"); }' % (n.lower(), n))
    return "\n".join(t) + "\n"


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 4:
        die("usage: gen_adaptor.py SPEC_DIR SMPI_H OUT_DIR")
    spec_dir, smpi_h, out_dir = sys.argv[1:]
    funcs = read_spec(os.path.join(spec_dir, "functions.spec"))
    names = [l.strip() for l in open(os.path.join(spec_dir, "mpi_names.txt")) if l.strip()]
    translated = {f[1] for f in funcs}
    if len(translated) != len(funcs):
        die("functions.spec lists a function twice")
    serrs = smpi_errors(smpi_h)
    head = "/* Generated by stacks/abi/gen_adaptor.py from stacks/abi/spec/: do not edit. */\n"
    # each file's place in the adaptor's order (adaptor.h): what it may call
    bottom = "/* Bottom of the adaptor's order (adaptor.h): data, calls no file of the adaptor. */\n"
    top = ("/* Top of the adaptor's order (adaptor.h): calls the files below it (bind.c, handles.c, values.c,\n"
           " * the ABI's file, ops.c, tables); none calls it. */\n")

    enum = [head, "#ifndef ABI_CONSTS_H", "#define ABI_CONSTS_H", "enum abi_const {"]
    enum += ["  C_%s," % c[4:] for c in CONSTS] + ["  ABI_NCONST", "};", "#endif"]
    write(os.path.join(out_dir, "abi_consts.h"), "\n".join(enum) + "\n")

    # The function table: names looked up in the icsim MPI layer at MPI_Init.
    bodies, costs = [], []
    for fid, (ret, name, params, _) in enumerate(funcs):
        body, conv, dts = gen_wrapper(fid, ret, name, params)
        bodies.append(body)
        costs.append((name, conv, dts))
    fn_names = "const char *const abi_fn_names[] = {\n" + "".join('  "%s",\n' % f[1] for f in funcs) + "};\n"
    fn_names += "const int abi_nfn = %d;\nvoid *abi_fn[%d];\n" % (len(funcs), len(funcs))

    # written by hand in adaptor/fint_*.c: a handle's Fortran integer and back (no call into SMPI)
    hand = {"MPI_%s_%s" % (k, d) for k in FINT_KINDS for d in ("c2f", "f2c")}
    stubs = []
    for n in names:
        if n not in translated and n not in hand:
            stubs.append('void %s(void) { abi_untranslated("%s"); }\nvoid P%s(void) { abi_untranslated("%s"); }'
                         % (n, n, n, n))

    for abi in ("mpich", "ompi"):
        path = os.path.join(spec_dir, abi + ".abi")
        if not os.path.exists(path):
            continue
        handles, consts, errs = read_abi(path)
        t = [head + bottom, '#include "abi_%s.h"\n' % abi]
        # predefined handles: kind, name, value (an integer, or an object of this library)
        # pointer ABIs: the predefined objects programs refer to, with the size the real library gives
        # them (a program's copy relocation copies that many bytes); abi_ompi.h says what they hold
        defined = set()
        for i, (kind, name, value, size) in enumerate(handles):
            if size and value not in defined:  # two names may share an object (MPI_LONG_LONG and _INT)
                defined.add(value)
                t.append("ABI_DEFINE_OBJECT(%s, %s, %s, %d);" % (value, size, AK[kind], i))
        t.append("const struct abi_predef abi_predefs[] = {")
        for kind, name, value, size in handles:
            t.append('  {%s, "%s", ABI_PREDEF_VALUE(%s), %s},' % (AK[kind], name, value,
                                                               '"%s"' % value if size else "NULL"))
        t.append("};\nconst int abi_npredefs = %d;\n" % len(handles))
        missing = [c for c in CONSTS if c not in consts]
        if missing:
            die("%s: constants missing: %s" % (path, " ".join(missing)))
        t.append("const int abi_a_const[ABI_NCONST] = {" + ", ".join(consts[c] for c in CONSTS) + "};")
        t.append("const intptr_t abi_a_in_place = %s, abi_a_bottom = %s, abi_a_status_ignore = %s;"
                 % (consts["MPI_IN_PLACE"], consts["MPI_BOTTOM"], consts["MPI_STATUS_IGNORE"]))
        if "MPI_ERR_LASTCODE" not in consts:
            die("%s: constant missing: MPI_ERR_LASTCODE" % path)
        t.append("const int abi_a_lastcode = %s;" % consts["MPI_ERR_LASTCODE"])
        # error codes: SMPI's code (index) -> this ABI's value; codes the ABI lacks become MPI_ERR_OTHER
        t.append("const int abi_err_out[%d] = {" % len(serrs))
        for e in serrs:
            t.append("  %s, /* %s */" % (errs.get(e, errs["MPI_ERR_OTHER"]), e))
        t.append("};\nconst int abi_nerr = %d;" % len(serrs))
        t.append(fn_names)
        write(os.path.join(out_dir, "tables_%s.c" % abi), "\n".join(t) + "\n")
        t = [head + top, '#include "abi_%s.h"\n' % abi]
        t += bodies
        t += stubs
        write(os.path.join(out_dir, "wrappers_%s.c" % abi), "\n".join(t) + "\n")

    ftop = ("/* Top of libmpichfort.so.12's order (adaptor.h): calls fortran.c and libmpich.so.12's C entry\n"
            " * points; none calls it. */\n")
    write(os.path.join(out_dir, "fortran_mpich.c"), gen_fortran(funcs, names, head + ftop))

    # SMPI's side, compiled against SimGrid's mpi.h.
    handle_names = sorted({h[1] for abi in ("mpich", "ompi") if os.path.exists(os.path.join(spec_dir, abi + ".abi"))
                           for h in read_abi(os.path.join(spec_dir, abi + ".abi"))[0]})
    t = [head + bottom, "#include <mpi.h>", "#include <string.h>", '#include "adaptor.h"', "",
         "/* SMPI's handle for the predefined handle NAME; ABI_NO_TARGET when SMPI has none. MPI_COMM_WORLD and",
         " * MPI_COMM_SELF are asked for at each use (abi_target_world, abi_target_self). */",
         "void *abi_target_predef(const char *name)", "{"]
    for n in handle_names:
        if n in ("MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_INFO_ENV"):
            continue
        t.append("#ifdef %s\n  if (!strcmp(name, \"%s\")) return (void *)%s;\n#endif" % (n, n, n))
    t.append("  return ABI_NO_TARGET;\n}\n")
    t.append("const int abi_t_const[ABI_NCONST] = {")
    for c in CONSTS:
        if c in ENUM_CONSTS:
            t.append("  %s," % c)
        else:
            t.append("#ifdef %s\n  %s,\n#else\n  ABI_NO_CONST,\n#endif" % (c, c))
    t.append("};")
    t.append("const int *const abi_t_unweighted = MPI_UNWEIGHTED, *const abi_t_weights_empty = MPI_WEIGHTS_EMPTY;")
    t.append("void *abi_t_in_place = MPI_IN_PLACE, *abi_t_bottom = MPI_BOTTOM;")
    t.append("const int abi_t_lastcode = MPI_ERR_LASTCODE;")
    t.append("const char *const abi_err_names[] = {" + ", ".join('"%s"' % e for e in serrs) + "};")
    t.append("const int abi_t_nerr = %d;" % len(serrs))
    write(os.path.join(out_dir, "target_tables.c"), "\n".join(t) + "\n")

    # What each call converts: the abi stack's cost table, sorted for bsearch.
    t = [head, '#include "abi.h"', "", "const struct abi_call_cost abi_call_costs[] = {"]
    for name, conv, dts in sorted(costs):
        t.append('  {"%s", %d, %d},' % (name, conv, dts))
    t.append("};\nconst size_t abi_ncall_costs = %d;" % len(costs))
    write(os.path.join(out_dir, "abi_calls.c"), "\n".join(t) + "\n")


if __name__ == "__main__":
    main()
