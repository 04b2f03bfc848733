! The Fortran ways to end a run, chosen by the first argument, for test_exit.c: MPI_ABORT with
! code 11 from rank 1, STOP 9 on rank 1 while the other ranks are blocked, ERROR STOP 5.
program exit_paths_f
  include 'mpif.h'
  integer :: ierr, rank, x
  character(len=32) :: mode
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, mode)
  x = 0
  if (rank == 1) then
    if (mode == 'abort') call MPI_ABORT(MPI_COMM_WORLD, 11, ierr)
    if (mode == 'stop') stop 9
    if (mode == 'error-stop') error stop 5
  end if
  if (rank == 0) call MPI_RECV(x, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (rank == 1) call MPI_SEND(x, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program exit_paths_f
