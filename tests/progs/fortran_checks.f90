! Self-checking Fortran MPI program for the layer's Fortran entry points (sim/mpi/fortran.c):
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, 1-based indices from waitany/testany/waitsome,
! request handles becoming MPI_REQUEST_NULL on completion, persistent requests keeping theirs,
! MPI_IN_PLACE, communicator creation and freeing, put/get/accumulate, a non-blocking collective,
! a fetch-and-op under a lock, a Cartesian communicator, and the program's own error class, code
! and string raised through its own handler (whose two handles are freed), a graph and a
! distributed graph with a neighbourhood collective each. Runs on 2 or more ranks;
! rank 0 prints "fortran checks passed" or the failures (one "FAIL" line each).
program fortran_checks
  implicit none
  include 'mpif.h'
  integer :: rank, np, ierr, fails, i, idx, round, outcount, cnt, total, newcomm, dupcomm
  integer :: status(MPI_STATUS_SIZE), val, vals(3), pair, sval
  integer, allocatable :: reqs(:), buf(:), indices(:), statuses(:, :)
  integer :: req, win, winbuf(4)
  integer(kind=MPI_ADDRESS_KIND) :: disp, winsize
  logical :: flag, seen(64), periodic(1)
  integer :: ecls, ecode, eh, eh2, seen_code, gidx(64), gedges(128), gnb(2), gr(2), tkind, nn, ne, indeg, outdeg
  logical :: weighted, isinter
  integer :: half, icomm, merged, rsz, lsz, mrank, mtot
  character(len=MPI_MAX_ERROR_STRING) :: estr
  common /fchecks_err/ seen_code
  external :: on_error

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  fails = 0
  allocate (reqs(np), buf(np), indices(np), statuses(MPI_STATUS_SIZE, np))

  ! 1. waitany: 1-based index, completed handle nulled, status filled; MPI_UNDEFINED at the end.
  if (rank == 0) then
    do i = 1, np - 1
      call MPI_Irecv(buf(i), 1, MPI_INTEGER, i, 100 + i, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    seen = .false.
    do i = 1, np - 1
      call MPI_Waitany(np - 1, reqs, idx, status, ierr)
      call check(idx >= 1 .and. idx <= np - 1, 'waitany index in 1..n')
      if (idx < 1 .or. idx > np - 1) exit
      call check(.not. seen(idx), 'waitany returns each index once')
      seen(idx) = .true.
      call check(reqs(idx) == MPI_REQUEST_NULL, 'waitany nulls the completed handle')
      call check(status(MPI_SOURCE) == idx .and. status(MPI_TAG) == 100 + idx, 'waitany status source and tag')
      call check(buf(idx) == 10 * idx, 'waitany data')
    end do
    call MPI_Waitany(np - 1, reqs, idx, status, ierr)
    call check(idx == MPI_UNDEFINED, 'waitany on null handles gives MPI_UNDEFINED')
  else
    call MPI_Send(10 * rank, 1, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, ierr)
  end if

  ! 2. MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE; a real status gives the count.
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, np), 7, val, 1, MPI_INTEGER, mod(rank + np - 1, np), 7, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. val == mod(rank + np - 1, np), 'sendrecv with MPI_STATUS_IGNORE')
  if (rank == 0) then
    call MPI_Irecv(vals, 3, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(req == MPI_REQUEST_NULL .and. all(vals == [1, 2, 3]), 'wait with MPI_STATUS_IGNORE')
    call MPI_Recv(vals, 3, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    call check(cnt == 2 .and. status(MPI_SOURCE) == 1 .and. status(MPI_TAG) == 9, 'recv status: count, source, tag')
    do i = 1, np - 1
      call MPI_Irecv(buf(i), 1, MPI_INTEGER, i, 11, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    call MPI_Waitall(np - 1, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(all(reqs(1:np - 1) == MPI_REQUEST_NULL), 'waitall with MPI_STATUSES_IGNORE nulls handles')
    call check(all(buf(1:np - 1) == [(i + 1000, i=1, np - 1)]), 'waitall data')
  else
    if (rank == 1) then
      call MPI_Send([1, 2, 3], 3, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, ierr)
      call MPI_Send([4, 5], 2, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, ierr)
    end if
    sval = rank + 1000 ! a variable, not an expression: the send may read it until the wait
    call MPI_Isend(sval, 1, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, status, ierr)
    call check(req == MPI_REQUEST_NULL, 'isend handle nulled by wait')
  end if

  ! 3. Persistent requests between 0 and 1: the handle survives wait/test, start and startall
  !    reuse it, request_free nulls it. The receive is started before the send (barrier between):
  !    SMPI 3.32 loses a restarted persistent send below smpi/send-is-detached-thresh whose receive
  !    is not posted yet (same in C with plain smpicc), which is not what is tested here.
  pair = -1
  if (rank == 0) pair = 1
  if (rank == 1) pair = 0
  if (pair >= 0) then
    if (rank == 0) then
      call MPI_Send_init(val, 1, MPI_INTEGER, pair, 20, MPI_COMM_WORLD, req, ierr)
    else
      call MPI_Recv_init(val, 1, MPI_INTEGER, pair, 20, MPI_COMM_WORLD, req, ierr)
    end if
    call check(req /= MPI_REQUEST_NULL, 'persistent init gives a handle')
    do round = 1, 4
      if (rank == 0) val = 100 + round
      if (rank == 1) call start(round)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      if (rank == 0) call start(round)
      if (round <= 2) then
        call MPI_Wait(req, status, ierr)
      else
        flag = .false.
        do while (.not. flag)
          call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
        end do
      end if
      call check(req /= MPI_REQUEST_NULL, 'persistent handle kept after completion')
      if (rank == 1) call check(val == 100 + round, 'persistent data')
    end do
    call MPI_Request_free(req, ierr)
    call check(req == MPI_REQUEST_NULL, 'request_free nulls the handle')
  else
    do round = 1, 4
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
  end if

  ! 4. testany and waitsome: 1-based indices.
  if (rank == 0) then
    do i = 1, np - 1
      call MPI_Irecv(buf(i), 1, MPI_INTEGER, i, 30, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(np - 1, reqs, idx, flag, status, ierr)
    end do
    call check(idx >= 1 .and. idx <= np - 1, 'testany index in 1..n')
    if (idx >= 1 .and. idx <= np - 1) then
      call check(reqs(idx) == MPI_REQUEST_NULL .and. status(MPI_SOURCE) == idx .and. buf(idx) == 30 + idx, &
                 'testany handle, status and data')
    end if
    total = 1
    do while (total < np - 1)
      call MPI_Waitsome(np - 1, reqs, outcount, indices, statuses, ierr)
      call check(outcount >= 1, 'waitsome completes something')
      if (outcount < 1) exit
      do i = 1, outcount
        idx = indices(i)
        call check(idx >= 1 .and. idx <= np - 1, 'waitsome index in 1..n')
        if (idx < 1 .or. idx > np - 1) cycle
        call check(reqs(idx) == MPI_REQUEST_NULL .and. statuses(MPI_SOURCE, i) == idx .and. buf(idx) == 30 + idx, &
                   'waitsome handle, status and data')
      end do
      total = total + outcount
    end do
  else
    call MPI_Ssend(30 + rank, 1, MPI_INTEGER, 0, 30, MPI_COMM_WORLD, ierr)
  end if

  ! 5. Communicators: split by parity, dup, in-place allreduce on them, free.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, newcomm, ierr)
  call MPI_Comm_dup(newcomm, dupcomm, ierr)
  val = rank
  call MPI_Allreduce(MPI_IN_PLACE, val, 1, MPI_INTEGER, MPI_SUM, dupcomm, ierr)
  total = 0
  do i = mod(rank, 2), np - 1, 2
    total = total + i
  end do
  call check(val == total, 'in-place allreduce on a split and dup-ed communicator')
  call MPI_Bcast(val, 1, MPI_INTEGER, 0, newcomm, ierr)
  call check(val == total, 'bcast on the split communicator')
  call MPI_Comm_free(dupcomm, ierr)
  call check(ierr == MPI_SUCCESS .and. dupcomm == MPI_COMM_NULL, 'comm_free nulls the handle')
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, merge(MPI_UNDEFINED, 0, rank == 0), rank, newcomm, ierr)
  if (rank == 0) call check(newcomm == MPI_COMM_NULL, 'split with MPI_UNDEFINED gives MPI_COMM_NULL')
  if (rank /= 0) call MPI_Comm_free(newcomm, ierr)

  ! 6. Collectives with MPI_IN_PLACE at the root (gather) and everywhere (allgather).
  buf = -1
  buf(rank + 1) = rank * 3
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, buf, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(buf == [(3 * i, i=0, np - 1)]), 'gather with MPI_IN_PLACE at the root')
  else
    call MPI_Gather(buf(rank + 1), 1, MPI_INTEGER, buf, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  buf = -1
  buf(rank + 1) = rank * 5
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, buf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(buf == [(5 * i, i=0, np - 1)]), 'allgather with MPI_IN_PLACE')

  ! 7. One-sided: put to the right neighbour, get from the left one, accumulate into rank 0,
  !    with fences; target displacements are INTEGER(MPI_ADDRESS_KIND).
  winbuf = 0
  winsize = 4 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  val = 1000 + rank
  disp = 1
  call MPI_Put(val, 1, MPI_INTEGER, mod(rank + 1, np), disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(winbuf(2) == 1000 + mod(rank + np - 1, np), 'put into the right neighbour')
  disp = 1
  call MPI_Get(vals(1), 1, MPI_INTEGER, mod(rank + np - 1, np), disp, 1, MPI_INTEGER, win, ierr)
  disp = 3
  sval = rank + 1 ! origin buffers are read until the fence: variables, not expressions
  call MPI_Accumulate(sval, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(vals(1) == 1000 + mod(rank + 2 * np - 2, np), 'get from the left neighbour')
  if (rank == 0) call check(winbuf(4) == np * (np + 1) / 2, 'accumulate into rank 0')
  call MPI_Win_free(win, ierr)

  ! 8. A non-blocking all-to-all, a fetch-and-op under a lock and a Cartesian communicator: the
  !    window, lock and communicator calls send SMPI's own messages, bracketed by the layer's
  !    Fortran entries (under --stats every transfer must be joined to its message).
  buf = [(100 * rank + i, i=1, np)]
  call MPI_Ialltoall(buf, 1, MPI_INTEGER, indices, 1, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(req == MPI_REQUEST_NULL, 'ialltoall request nulled by wait')
  call check(all(indices == [(100 * i + rank + 1, i=0, np - 1)]), 'ialltoall data')
  winbuf = 0
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  sval = 1
  val = -1
  disp = 0
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
  call MPI_Fetch_and_op(sval, val, MPI_INTEGER, 0, disp, MPI_SUM, win, ierr)
  call MPI_Win_unlock(0, win, ierr)
  call check(val >= 0 .and. val < np, 'fetch_and_op returns an earlier count')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    call check(winbuf(1) == np, 'fetch_and_op count')
    call MPI_Win_unlock(0, win, ierr)
  end if
  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'win_free nulls the handle')
  vals(1) = np
  periodic(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, vals, periodic, .false., newcomm, ierr)
  call MPI_Comm_size(newcomm, cnt, ierr)
  call check(cnt == np, 'cart_create size')
  call MPI_Comm_free(newcomm, ierr)

  ! 10. An error class, code and string of the program's own (SMPI leaves them unset), raised
  ! through its own handler; the handler's two handles (its own, get_errhandler's) both freed.
  call MPI_Add_error_class(ecls, ierr)
  call MPI_Add_error_code(ecls, ecode, ierr)
  call MPI_Add_error_string(ecode, 'my fortran error   ', ierr)
  call MPI_Error_class(ecode, val, ierr)
  call check(ierr == MPI_SUCCESS .and. val == ecls .and. ecode /= ecls, 'error_class of an added code')
  call MPI_Error_string(ecode, estr, cnt, ierr)
  call check(cnt == 16 .and. estr == 'my fortran error', 'error_string of an added code, blanks trimmed')
  call MPI_Comm_dup(MPI_COMM_WORLD, dupcomm, ierr)
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(dupcomm, eh, ierr)
  call MPI_Comm_get_errhandler(dupcomm, eh2, ierr)
  call MPI_Errhandler_free(eh2, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call check(ierr == MPI_SUCCESS .and. eh == MPI_ERRHANDLER_NULL, 'errhandler_free of the second handle')
  seen_code = -1
  call MPI_Comm_call_errhandler(dupcomm, ecode, ierr)
  call check(seen_code == ecode, 'comm_call_errhandler calls the handler with the code')
  call MPI_Comm_free(dupcomm, ierr)
  ! ... and on a window (calls SMPI has no Fortran binding for)
  winsize = 16
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_create_errhandler(on_error, eh, ierr)
  call MPI_Win_set_errhandler(win, eh, ierr)
  call MPI_Win_get_errhandler(win, eh2, ierr)
  call check(ierr == MPI_SUCCESS .and. eh2 == eh, 'win_get_errhandler returns the handler set')
  call MPI_Errhandler_free(eh2, ierr)
  call MPI_Errhandler_free(eh, ierr)
  seen_code = -1
  call MPI_Win_call_errhandler(win, ecls, ierr)
  call check(seen_code == ecls, 'win_call_errhandler calls the handler with the class')
  call MPI_Win_free(win, ierr)

  ! 11. Topologies SMPI has no Fortran (or C) implementation of: a ring graph and a distributed
  ! graph, with a neighbourhood collective on each.
  do i = 1, np
    gedges(2 * i - 1) = mod(i, np)
    gedges(2 * i) = mod(i + np - 2, np)
    gidx(i) = 2 * i
  end do
  call MPI_Graph_create(MPI_COMM_WORLD, np, gidx, gedges, .false., newcomm, ierr)
  call MPI_Topo_test(newcomm, tkind, ierr)
  call check(tkind == MPI_GRAPH, 'topo_test of a graph gives MPI_GRAPH')
  call MPI_Graphdims_get(newcomm, nn, ne, ierr)
  call check(nn == np .and. ne == 2 * np, 'graphdims_get')
  call MPI_Graph_neighbors(newcomm, rank, 2, gnb, ierr)
  val = 100 + rank
  call MPI_Neighbor_allgather(val, 1, MPI_INTEGER, gr, 1, MPI_INTEGER, newcomm, ierr)
  call check(gr(1) == 100 + gnb(1) .and. gr(2) == 100 + gnb(2), 'neighbor_allgather on a graph')
  call MPI_Comm_free(newcomm, ierr)
  gnb(1) = mod(rank + np - 1, np)
  gnb(2) = mod(rank + 1, np)
  gr = [3, 4]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, gnb(1), gr(1), 1, gnb(2), gr(2), MPI_INFO_NULL, .false., &
                                      newcomm, ierr)
  call MPI_Dist_graph_neighbors_count(newcomm, indeg, outdeg, weighted, ierr)
  call check(indeg == 1 .and. outdeg == 1 .and. weighted, 'dist_graph_neighbors_count')
  call MPI_Neighbor_alltoall(val, 1, MPI_INTEGER, gr(1), 1, MPI_INTEGER, newcomm, ierr)
  call check(gr(1) == 100 + gnb(1), 'neighbor_alltoall on a distributed graph')
  call MPI_Comm_free(newcomm, ierr)

  ! 12. MPI_Dims_create gives the most balanced grid (SMPI's own binding gives 20 x 12 for 240).
  gr = [0, 0]
  call MPI_Dims_create(240, 2, gr, ierr)
  call check(gr(1) == 16 .and. gr(2) == 15, 'dims_create(240, 2) is 16 x 15')

  ! 13. An intercommunicator between the halves of the world (SMPI has none: the layer's), merged
  ! back into a world, as MPICH's test utilities do.
  call MPI_Comm_split(MPI_COMM_WORLD, merge(1, 0, rank < np / 2), rank, half, ierr)
  call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, merge(np / 2, 0, rank < np / 2), 9, icomm, ierr)
  call MPI_Comm_test_inter(icomm, isinter, ierr)
  call MPI_Comm_remote_size(icomm, rsz, ierr)
  call MPI_Comm_size(icomm, lsz, ierr)
  call check(isinter .and. rsz + lsz == np, 'intercomm_create: an intercommunicator of both halves')
  call MPI_Intercomm_merge(icomm, rank >= np / 2, merged, ierr)
  call MPI_Comm_rank(merged, mrank, ierr)
  call MPI_Allreduce(rank, mtot, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
  call check(mrank == rank .and. mtot == np * (np - 1) / 2, 'intercomm_merge: the world again, in order')
  call MPI_Comm_free(merged, ierr)
  call MPI_Comm_free(icomm, ierr)
  call MPI_Comm_free(half, ierr)

  ! 14. MPI_Comm_idup: the new communicator's Fortran handle is usable once the request is waited for.
  call MPI_Comm_idup(MPI_COMM_WORLD, merged, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(rank, mtot, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
  call check(mtot == np * (np - 1) / 2, 'comm_idup: an allreduce on the duplicate')
  call MPI_Comm_free(merged, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (fails == 0) then
      write (*, '(A,I0,A)') 'fortran checks passed on ', np, ' ranks'
    else
      write (*, '(A,I0)') 'fortran checks failed: ', fails
    end if
  end if
  call MPI_Finalize(ierr)

contains

  ! Rounds 1-2 start with MPI_Start, rounds 3-4 with MPI_Startall.
  subroutine start(round)
    integer, intent(in) :: round
    if (round <= 2) then
      call MPI_Start(req, ierr)
    else
      call MPI_Startall(1, [req], ierr)
    end if
  end subroutine start

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (*, '(A,I0,2A)') 'FAIL rank ', rank, ': ', what
      fails = fails + 1
    end if
  end subroutine check

end program fortran_checks

! The program's error handler (section 10): remembers the code it was called with.
subroutine on_error(comm, code)
  implicit none
  integer :: comm, code
  integer :: seen_code
  common /fchecks_err/ seen_code
  seen_code = code
end subroutine on_error
