/* What the adaptor translates, checked from the program's side: ordinary MPI, built by another MPI's
 * compiler (mpicc.mpich, mpicc.openmpi) and run unchanged under icsim. Each check prints
 * "ok NAME" or "FAIL NAME: why"; the last line says how many failed. Run on 4 ranks. */
/* MPICH's mpi.h makes MPI_UNWEIGHTED a pointer GCC believes points at nothing; passing it is right */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failed;
static int me, np;

static void check(int cond, const char *name, const char *why)
{
  if (me != 0)
    return;
  if (cond)
    printf("ok %s\n", name);
  else {
    printf("FAIL %s: %s\n", name, why);
    failed++;
  }
}

static void max_abs(void *in, void *inout, int *len, MPI_Datatype *type)
{
  /* the datatype arrives as the program's own handle */
  if (*type != MPI_INT)
    return;
  int *a = in, *b = inout;
  for (int i = 0; i < *len; i++) {
    int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
    b[i] = x > y ? x : y;
  }
}

/* Three user ops that differ by what they add per reduction step (for many ops alive at once). */
static void add0(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  for (int i = 0; i < *len; i++)
    ((int *)inout)[i] += ((int *)in)[i];
}
static void add1(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  for (int i = 0; i < *len; i++)
    ((int *)inout)[i] += ((int *)in)[i] + 1000;
}
static void add2(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  for (int i = 0; i < *len; i++)
    ((int *)inout)[i] += ((int *)in)[i] + 2000000;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  /* a user-defined op, sees MPI_INT as the program knows it */
  MPI_Op op;
  MPI_Op_create(max_abs, 1, &op);
  int v = (me % 2 ? -1 : 1) * (me + 1), r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_INT, op, MPI_COMM_WORLD);
  check(r == np, "user_op", "max |rank+1| should be the rank count");
  MPI_Op_free(&op);
  check(op == MPI_OP_NULL, "op_free_nulls", "MPI_Op_free must set MPI_OP_NULL");

  /* a receive's status keeps the MPI_ERROR the program put there (MPI 3.1, 3.2.5) */
  {
    int x = me, y = -1;
    MPI_Status est;
    est.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 3, &y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &est);
    MPI_Request rq;
    MPI_Irecv(&y, 1, MPI_INT, 0, 4, MPI_COMM_SELF, &rq);
    MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
    MPI_Status wst;
    wst.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Wait(&rq, &wst);
    check(est.MPI_ERROR == MPI_ERR_DIMS && wst.MPI_ERROR == MPI_ERR_DIMS && y == me, "status_error_kept",
          "MPI_ERROR as the program set it after a receive and a wait");
  }

  /* MPI_IN_PLACE */
  int s = me;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(s == np * (np - 1) / 2, "in_place_allreduce", "sum of ranks");

  /* statuses: source, tag, count from MPI_ANY_SOURCE / MPI_ANY_TAG receives */
  if (me == 1) {
    double d[3] = {1, 2, 3};
    MPI_Send(d, 3, MPI_DOUBLE, 0, 42, MPI_COMM_WORLD);
  } else if (me == 0) {
    double d[8];
    MPI_Status st;
    int n = -1;
    MPI_Recv(d, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    check(st.MPI_SOURCE == 1 && st.MPI_TAG == 42 && n == 3 && d[2] == 3, "status_fields", "source 1, tag 42, 3 doubles");
    MPI_Get_count(&st, MPI_INT, &n);
    check(n == 6, "get_count_other_type", "24 bytes are 6 ints");
  }
  /* before anyone sends rank 0 anything else: its receive above takes any source and tag */
  MPI_Barrier(MPI_COMM_WORLD);

  /* rank 0 as a source (a message to itself): SMPI's MPI_ROOT is 0, which a rank coming back must
   * not become */
  if (me == 0) {
    MPI_Status st0;
    MPI_Request self;
    int z = -1;
    MPI_Isend(&me, 1, MPI_INT, 0, 43, MPI_COMM_WORLD, &self);
    MPI_Recv(&z, 1, MPI_INT, MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &st0);
    MPI_Wait(&self, MPI_STATUS_IGNORE);
    check(st0.MPI_SOURCE == 0 && z == 0, "status_source_rank_0", "source 0 (not MPI_ROOT)");
    /* a receive at absolute addresses: MPI_BOTTOM and a type holding the address */
    MPI_Aint at;
    MPI_Datatype abs_int;
    int one = 1, v = 77;
    z = -1;
    MPI_Get_address(&z, &at);
    MPI_Type_create_hindexed(1, &one, &at, MPI_INT, &abs_int);
    MPI_Type_commit(&abs_int);
    MPI_Isend(&v, 1, MPI_INT, 0, 44, MPI_COMM_WORLD, &self);
    MPI_Recv(MPI_BOTTOM, 1, abs_int, 0, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&self, MPI_STATUS_IGNORE);
    MPI_Type_free(&abs_int);
    check(z == 77, "recv_at_mpi_bottom", "77 received at z's absolute address");
  }

  /* receive from MPI_PROC_NULL: status says MPI_PROC_NULL, MPI_ANY_TAG */
  MPI_Status pn;
  MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn);
  check(pn.MPI_SOURCE == MPI_PROC_NULL && pn.MPI_TAG == MPI_ANY_TAG, "proc_null_status", "source and tag");

  /* non-blocking ring, Waitall with MPI_STATUSES_IGNORE; requests become MPI_REQUEST_NULL */
  int left = (me + np - 1) % np, right = (me + 1) % np, got = -1;
  MPI_Request rq[2];
  MPI_Irecv(&got, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&me, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  check(got == left && rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "ring_waitall", "value and nulled requests");

  /* Waitany over null requests gives MPI_UNDEFINED */
  int idx = 0;
  MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
  check(idx == MPI_UNDEFINED, "waitany_undefined", "index MPI_UNDEFINED");

  /* persistent requests */
  int pv = -1;
  MPI_Request pr[2];
  MPI_Recv_init(&pv, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(&me, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &pr[1]);
  for (int i = 0; i < 2; i++) {
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
  }
  check(pv == left && pr[0] != MPI_REQUEST_NULL, "persistent", "value, request kept");
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);

  /* derived datatype: every other int of 8 */
  int src[8], dst[4] = {0};
  for (int i = 0; i < 8; i++)
    src[i] = i;
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Sendrecv(src, 1, vec, me, 9, dst, 4, MPI_INT, me, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(dst[0] == 0 && dst[3] == 6, "vector_type", "0 2 4 6");
  int tsize = 0;
  MPI_Type_size(vec, &tsize);
  check(tsize == 16, "type_size", "4 ints");
  MPI_Type_free(&vec);
  check(vec == MPI_DATATYPE_NULL, "type_free_nulls", "MPI_DATATYPE_NULL");

  /* communicators: split with MPI_UNDEFINED, compare, dup */
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, me == np - 1 ? MPI_UNDEFINED : me % 2, me, &half);
  int nulled = me == np - 1 ? half == MPI_COMM_NULL : half != MPI_COMM_NULL;
  if (half != MPI_COMM_NULL)
    MPI_Comm_free(&half);
  MPI_Allreduce(MPI_IN_PLACE, &nulled, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  check(nulled, "split_undefined", "MPI_COMM_NULL for the rank that gave MPI_UNDEFINED only");
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int cmp = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  check(cmp == MPI_CONGRUENT, "compare_congruent", "a dup is MPI_CONGRUENT");
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
  check(cmp == MPI_IDENT, "compare_ident", "MPI_IDENT");
  int dr = -1;
  MPI_Comm_rank(dup, &dr);
  MPI_Comm_free(&dup);
  check(dr == me && dup == MPI_COMM_NULL, "dup_free", "rank kept, freed to MPI_COMM_NULL");

  /* groups: translate a rank that is not in the other group */
  MPI_Group world, first;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int zero = 0, last = np - 1, out[2];
  MPI_Group_incl(world, 1, &zero, &first);
  int in2[2] = {0, last};
  MPI_Group_translate_ranks(world, 2, in2, first, out);
  check(out[0] == 0 && out[1] == MPI_UNDEFINED, "translate_undefined", "0 and MPI_UNDEFINED");
  int in3[2] = {MPI_PROC_NULL, 0};
  MPI_Group_translate_ranks(world, 2, in3, first, out);
  check(out[0] == MPI_PROC_NULL && out[1] == 0, "translate_proc_null", "MPI_PROC_NULL maps to MPI_PROC_NULL");
  MPI_Group_free(&first);
  MPI_Group_free(&world);

  /* Cartesian shift off the edge gives MPI_PROC_NULL */
  MPI_Comm line;
  int dims[1] = {np}, periods[1] = {0}, lo, hi;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
  MPI_Cart_shift(line, 0, 1, &lo, &hi);
  check(lo == MPI_PROC_NULL, "cart_shift_proc_null", "rank 0 has no left neighbour");
  MPI_Comm_free(&line);
  int ring[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, ring, 0, &line);
  MPI_Cart_shift(line, 0, np, &lo, &hi); /* all the way round a periodic line: back to itself */
  check(lo == 0 && hi == 0, "cart_shift_rank_0", "rank 0's neighbours np away are rank 0 (not MPI_ROOT)");
  MPI_Comm_free(&line);

  /* MPI_Alltoallw: arrays of types as long as the communicator */
  {
    int sw[64], rw[64], cnt[64], dsp[64];
    MPI_Datatype ty[64];
    for (int i = 0; i < np && i < 64; i++) {
      sw[i] = 100 * me + i;
      rw[i] = -1;
      cnt[i] = 1;
      dsp[i] = i * (int)sizeof(int);
      ty[i] = MPI_INT;
    }
    MPI_Alltoallw(sw, cnt, dsp, ty, rw, cnt, dsp, ty, MPI_COMM_WORLD);
    int good = 1;
    for (int i = 0; i < np && i < 64; i++)
      good &= rw[i] == 100 * i + me;
    check(good, "alltoallw", "each rank's block from each rank");
  }

  /* the attribute MPI_TAG_UB */
  int *ub = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  check(flag && ub && *ub >= 32767, "tag_ub", "MPI_TAG_UB >= 32767");

  /* error codes in the program's ABI (MPICH's MPI_ERR_TRUNCATE is 14, Open MPI's 15, SMPI's 9) */
  int cls = -1;
  MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  check(cls == MPI_ERR_TRUNCATE, "error_class_truncate", "MPI_ERR_TRUNCATE is its own class");
  MPI_Error_class(MPI_ERR_COMM, &cls);
  check(cls == MPI_ERR_COMM, "error_class_comm", "MPI_ERR_COMM is its own class");

  /* MPI_LASTUSEDCODE is at least the ABI's MPI_ERR_LASTCODE, also before any class is added */
  {
    int *lu0 = NULL, fl0 = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lu0, &fl0);
    check(fl0 && lu0 && *lu0 >= MPI_ERR_LASTCODE, "lastusedcode_initial", "at least MPI_ERR_LASTCODE");
  }

  /* a class, code and string of the program's own: above the ABI's MPI_ERR_LASTCODE, read back */
  int ncls = -1, ncode = -1, cl2 = -1, el = 0, *lu = NULL, fl = 0;
  char es[MPI_MAX_ERROR_STRING] = "";
  MPI_Add_error_class(&ncls);
  MPI_Add_error_code(ncls, &ncode);
  MPI_Add_error_string(ncode, "abi check");
  MPI_Error_class(ncode, &cl2);
  MPI_Error_string(ncode, es, &el);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lu, &fl);
  check(ncls > MPI_ERR_LASTCODE && ncode > MPI_ERR_LASTCODE && cl2 == ncls && strcmp(es, "abi check") == 0 && fl &&
            lu && *lu >= ncls,
        "added_error_code", "class and code above MPI_ERR_LASTCODE, read back, MPI_LASTUSEDCODE");

  /* type classes are numbered differently in each ABI (MPICH REAL 1, Open MPI INTEGER 1, SMPI REAL 0) */
  MPI_Datatype mt = MPI_DATATYPE_NULL;
  int msz = 0;
  MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &mt);
  MPI_Type_size(mt, &msz);
  check(msz == 2, "type_match_size_integer", "a 2-byte integer type");
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &mt);
  MPI_Type_size(mt, &msz);
  check(msz == 8 && mt != MPI_DATATYPE_NULL, "type_match_size_real", "an 8-byte real type, a predefined handle");

  /* graphs: MPI_UNWEIGHTED (an exported pointer in MPICH, (int *) 2 in Open MPI), the topology kinds
   * (numbered differently), a neighbourhood all-to-all with one type per neighbour */
  {
  int left = (me + np - 1) % np, right = (me + 1) % np, kind = -1, indeg = -1, outdeg = -1, wgt = -1;
  MPI_Comm ring;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &ring);
  MPI_Topo_test(ring, &kind);
  check(kind == MPI_DIST_GRAPH, "topo_test_dist_graph", "a distributed graph is MPI_DIST_GRAPH");
  MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &wgt);
  check(indeg == 1 && outdeg == 1 && !wgt, "dist_graph_unweighted", "one in, one out, unweighted");
  int sendv = 100 + me, recvv = -1, one = 1;
  MPI_Aint zero = 0;
  MPI_Datatype ti = MPI_INT;
  MPI_Neighbor_alltoallw(&sendv, &one, &zero, &ti, &recvv, &one, &zero, &ti, ring);
  check(recvv == 100 + left, "neighbor_alltoallw", "the left neighbour's value");
  MPI_Comm_free(&ring);
  MPI_Topo_test(MPI_COMM_WORLD, &kind);
  check(kind == MPI_UNDEFINED, "topo_test_none", "no topology is MPI_UNDEFINED");
  int dims[1] = {np}, periods[1] = {1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Topo_test(cart, &kind);
  check(kind == MPI_CART, "topo_test_cart", "a Cartesian communicator is MPI_CART");
  MPI_Comm_free(&cart);
  }

  /* an intercommunicator between the halves of the world, merged back (MPICH's test utilities) */
  {
    MPI_Comm half, ic, back;
    int lower = me < np / 2, isinter = 0, rs = -1, br = -1;
    MPI_Comm_split(MPI_COMM_WORLD, lower, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? np / 2 : 0, 7, &ic);
    MPI_Comm_test_inter(ic, &isinter);
    MPI_Comm_remote_size(ic, &rs);
    check(isinter && rs == (lower ? np - np / 2 : np / 2), "intercomm_create", "the other half, as remote group");
    MPI_Intercomm_merge(ic, !lower, &back);
    MPI_Comm_rank(back, &br);
    check(br == me, "intercomm_merge", "the lower half first");
    MPI_Comm_free(&back);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
  }

  /* more user ops alive at once than a trampoline block holds (8): each must call its own function */
  {
    MPI_User_function *fns[3] = {add0, add1, add2};
    MPI_Op many[12];
    int ok = 1;
    for (int i = 0; i < 12; i++)
      MPI_Op_create(fns[i % 3], 1, &many[i]);
    for (int i = 0; i < 12; i++) {
      int one = 1, res = 0, step = i % 3 == 0 ? 0 : i % 3 == 1 ? 1000 : 2000000;
      MPI_Allreduce(&one, &res, 1, MPI_INT, many[i], MPI_COMM_WORLD);
      ok &= res == np + step * (np - 1);
    }
    for (int i = 0; i < 12; i++)
      MPI_Op_free(&many[i]);
    check(ok, "many_user_ops", "12 user ops alive at once, each applying its own function");
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0)
    printf("%d checks failed\n", failed);
  MPI_Finalize();
  return failed != 0;
}
