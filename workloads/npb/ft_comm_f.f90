! The communication pattern of NPB FT: the Fortran twin of ft_comm.c, which explains it. Same MPI
! calls with the same arguments (MPI_DOUBLE_PRECISION is C's MPI_DOUBLE), same data, same output.
! usage: ft_comm_f [CLASS]   (S, W, A or B; default S). Ordinary MPI-1 Fortran: builds with mpif90.
program ft_comm_f
  use iso_c_binding, only: c_loc, c_intptr_t
  implicit none
  include 'mpif.h'
  integer, parameter :: page = 4096
  integer :: rank, np, ierr, nx, ny, nz, niter, block, it, s0, r0
  integer(8) :: m, k
  character(len=16) :: arg
  character :: cls
  real(8), allocatable, target :: sraw(:), rraw(:)
  real(8) :: t0, t, tmax, local(2), total(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  arg = 'S'
  if (command_argument_count() >= 1) call get_command_argument(1, arg)
  cls = arg(1:1)
  if (len_trim(arg) /= 1) cls = '?'
  select case (cls)
  case ('S')
    nx = 64; ny = 64; nz = 64; niter = 6
  case ('W')
    nx = 128; ny = 128; nz = 32; niter = 6
  case ('A')
    nx = 256; ny = 256; nz = 128; niter = 6
  case ('B')
    nx = 512; ny = 256; nz = 256; niter = 20
  case default
    if (rank == 0) write (0, '(3A)') "ft_comm_f: '", trim(arg), "' is not a class (S, W, A, B)"
    call MPI_Finalize(ierr)
    stop 2
  end select
  if (iand(np, np - 1) /= 0 .or. np > ny .or. np > nz) then
    if (rank == 0) write (0, '(A,A,A,I0,A,I0)') 'ft_comm_f class ', cls, ': ', np, &
      ' processes; needs a power of two no larger than ', min(ny, nz)
    call MPI_Finalize(ierr)
    stop 2
  end if
  block = 2 * (nz / np) * (ny / np) * nx
  m = int(block, 8) * np
  ! Page-aligned, as the C twin's posix_memalign: over-allocate and start on a page boundary.
  ! Element k (0-based, as in C) of the send buffer is sraw(s0 + k).
  allocate (sraw(m + page / 8), rraw(m + page / 8))
  s0 = aligned_start(sraw)
  r0 = aligned_start(rraw)
  do k = 0, m - 1
    sraw(s0 + k) = dble(rank * 7 + int(mod(k, 13_8)))
  end do
  if (rank == 0) then
    write (*, '(/A)') ' FT communication pattern (icsim ft_comm)'
    write (*, '(A,A,A,I0,A,I0,A,I0,A,I0,A,I0,A)') ' Class ', cls, ', size ', nx, 'x', ny, 'x', nz, ', ', niter, &
      ' iterations, ', np, ' processes'
  end if

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  call MPI_Alltoall(sraw(s0), block, MPI_DOUBLE_PRECISION, rraw(r0), block, MPI_DOUBLE_PRECISION, &
                    MPI_COMM_WORLD, ierr) ! forward FFT
  do it = 1, niter
    do k = 0, m - 1 ! evolve + FFT stand-in
      sraw(s0 + k) = rraw(r0 + k) * 0.5d0 + it
    end do
    call MPI_Alltoall(sraw(s0), block, MPI_DOUBLE_PRECISION, rraw(r0), block, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD, ierr) ! backward FFT
    local = 0
    do k = 0, m - 1, 2 * 97 ! sampled, as FT's 1024-point checksum; weighted by rank
      local(1) = local(1) + rraw(r0 + k) * (rank + 1)
      local(2) = local(2) + rraw(r0 + k + 1)
    end do
    call MPI_Allreduce(local, total, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) write (*, '(A,I5,A,ES22.12E2,1X,ES22.12E2)') ' T = ', it, '     Checksum = ', total(1), total(2)
  end do
  t = MPI_Wtime() - t0
  call MPI_Reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(A,F24.9)') ' Time in seconds = ', tmax
  deallocate (sraw, rraw)
  call MPI_Finalize(ierr)

contains

  ! Index of the first element of BUF on a page boundary.
  integer function aligned_start(buf)
    real(8), target :: buf(:)
    integer(c_intptr_t) :: addr
    addr = transfer(c_loc(buf(1)), addr)
    aligned_start = 1 + int(modulo(-addr, int(page, c_intptr_t)) / 8)
  end function aligned_start

end program ft_comm_f
