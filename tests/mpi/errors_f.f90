! Wrong arguments from Fortran (issue 39): each call below has one, and MPI_ERRORS_RETURN is set,
! so each must return MPI's error class in IERROR. tests/mpi/CMakeLists.txt runs it natively
! (mpifort.mpich) and under icsim (icsimff, and the native binary through the MPI-Adaptor), and
! compares the lines. One rank is enough: every peer is a rank of a one-rank communicator.
program errors_f
  implicit none
  include 'mpif.h'
  integer :: ierr, dup, req, x(4), y(4), st(MPI_STATUS_SIZE), nbad
  call MPI_INIT(ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_SET_ERRHANDLER(dup, MPI_ERRORS_RETURN, ierr)
  x = 1
  nbad = 0
  call MPI_SEND(x, 1, MPI_INTEGER, 1000, 0, dup, ierr)
  call report('send to rank 1000', ierr)
  call MPI_SEND(x, 1, MPI_INTEGER, -1000, 0, dup, ierr)
  call report('send to rank -1000', ierr)
  call MPI_SEND(x, -1, MPI_INTEGER, MPI_PROC_NULL, 0, dup, ierr)
  call report('send of -1 elements', ierr)
  call MPI_SEND(x, 1, MPI_INTEGER, MPI_PROC_NULL, -5, dup, ierr)
  call report('send with tag -5', ierr)
  call MPI_RECV(x, 1, MPI_INTEGER, 1000, 0, dup, st, ierr)
  call report('recv from rank 1000', ierr)
  call MPI_IRECV(x, -1, MPI_INTEGER, MPI_PROC_NULL, 0, dup, req, ierr)
  call report('irecv of -1 elements', ierr)
  call MPI_ISEND(x, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, dup, req, ierr)
  call report('isend of MPI_DATATYPE_NULL', ierr)
  call MPI_BCAST(x, 1, MPI_INTEGER, 99, dup, ierr)
  call report('bcast from root 99', ierr)
  call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_OP_NULL, dup, ierr)
  call report('allreduce with MPI_OP_NULL', ierr)
  call MPI_ALLREDUCE(x, x, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  call report('allreduce of a buffer onto itself', ierr)
  call MPI_BARRIER(MPI_COMM_NULL, ierr)
  call report('barrier on MPI_COMM_NULL', ierr)
  call MPI_GATHER(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, -1000, dup, ierr)
  call report('gather to root -1000', ierr)
  call MPI_PROBE(0, -7, dup, st, ierr)
  call report('probe with tag -7', ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_FINALIZE(ierr)
contains
  subroutine report(what, code)
    character(*), intent(in) :: what
    integer, intent(in) :: code
    integer :: cls, e
    character(len=24) :: name
    cls = code
    if (code /= MPI_SUCCESS) call MPI_ERROR_CLASS(code, cls, e)
    select case (cls)
    case (MPI_SUCCESS); name = 'MPI_SUCCESS'
    case (MPI_ERR_RANK); name = 'MPI_ERR_RANK'
    case (MPI_ERR_COUNT); name = 'MPI_ERR_COUNT'
    case (MPI_ERR_TAG); name = 'MPI_ERR_TAG'
    case (MPI_ERR_TYPE); name = 'MPI_ERR_TYPE'
    case (MPI_ERR_ROOT); name = 'MPI_ERR_ROOT'
    case (MPI_ERR_OP); name = 'MPI_ERR_OP'
    case (MPI_ERR_BUFFER); name = 'MPI_ERR_BUFFER'
    case (MPI_ERR_COMM); name = 'MPI_ERR_COMM'
    case (MPI_ERR_ARG); name = 'MPI_ERR_ARG'
    case default; name = 'another class'
    end select
    print '(A, ": ", A)', what, trim(name)
  end subroutine report
end program errors_f
