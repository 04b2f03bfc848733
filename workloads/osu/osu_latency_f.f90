! Ping-pong latency between ranks 0 and 1, the Fortran twin of osu_latency.c: same options
! (-m [MIN:]MAX, -i ITERS, -x WARMUP), same defaults, same MPI calls (blocking MPI_Send and
! MPI_Recv of MPI_CHARACTER, one MPI_Barrier per size) and the same output, so the two can be
! compared line by line. One-way time = round trip / 2 (OSU convention).
! Ordinary MPI-1 Fortran: builds with mpif90 or icsimff.
program osu_latency_f
  use iso_c_binding, only: c_loc, c_intptr_t
  implicit none
  include 'mpif.h'
  integer, parameter :: large_message = 8192, page = 4096
  integer :: rank, np, ierr, i, iters, skip, size, status
  integer :: min_size = 0, max_size = 4194304
  integer :: iters_small = 10000, iters_large = 1000, skip_small = 100, skip_large = 10
  character(len=1), allocatable, target :: sbuf(:), rbuf(:)
  integer :: s0, r0
  double precision :: start
  character(len=10) :: col

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  status = parse_options()
  if (status < 0 .and. np /= 2) then
    if (rank == 0) write (0, '(A,I0,A)') 'osu_latency_f: needs exactly 2 ranks (got ', np, ')'
    status = 2
  end if
  if (status >= 0) then
    call MPI_Finalize(ierr)
    if (status /= 0) stop 2
    stop
  end if

  ! Page-aligned buffers, as osu_buffer() gives the C twin: a stack may treat aligned and
  ! unaligned buffers differently (RapidIO's zero-copy needs 4 KiB alignment). Messages start at
  ! sbuf(s0) and rbuf(r0), passed by address (no copy).
  allocate (sbuf(max_size + page), rbuf(max_size + page))
  sbuf = 'a'
  rbuf = 'b'
  s0 = aligned_start(sbuf)
  r0 = aligned_start(rbuf)
  if (rank == 0) then
    write (*, '(A)') '# icsim OSU-style MPI latency test'
    write (*, '(A)') '# Size          Latency (us)'
  end if
  size = min_size
  do while (size <= max_size)
    iters = iters_small
    skip = skip_small
    if (size > large_message) then
      iters = iters_large
      skip = skip_large
    end if
    start = 0
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do i = 0, iters + skip - 1
      if (i == skip) start = MPI_Wtime()
      if (rank == 0) then
        call MPI_Send(sbuf(s0), size, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, ierr)
        call MPI_Recv(rbuf(r0), size, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Recv(rbuf(r0), size, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(sbuf(s0), size, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, ierr)
      end if
    end do
    if (rank == 0) then
      write (col, '(I0)') size ! left-justified in 10 columns, as C's %-10zu
      write (*, '(A10,F18.2)') col, (MPI_Wtime() - start) * 1d6 / (2d0 * iters)
    end if
    flush (6)
    if (size == 0) then
      size = 1
    else
      size = size * 2
    end if
  end do
  deallocate (sbuf, rbuf)
  call MPI_Finalize(ierr)

contains

  ! Index of the first element of BUF on a page boundary.
  integer function aligned_start(buf)
    character(len=1), target :: buf(:)
    integer(c_intptr_t) :: addr
    addr = transfer(c_loc(buf(1)), addr)
    aligned_start = 1 + int(modulo(-addr, int(page, c_intptr_t)))
  end function aligned_start

  ! -1: run; otherwise the exit status (0 after -h, 2 after a bad option).
  integer function parse_options()
    character(len=256) :: a, v
    integer :: k, n, colon, ios
    parse_options = -1
    k = 1
    do while (k <= command_argument_count())
      call get_command_argument(k, a)
      if (a == '-h' .or. a == '--help') then
        if (rank == 0) then
          write (*, '(A)') 'usage: osu_latency_f [-m [MIN:]MAX] [-i ITERATIONS] [-x WARMUP]'
          write (*, '(A,I0,A,I0,A)') '  -m  message sizes in bytes (default ', min_size, ':', max_size, ')'
          write (*, '(A,I0,A,I0,A,I0,A)') '  -i  timed iterations per size (default ', iters_small, ', ', &
            iters_large, ' above ', large_message, ' bytes)'
          write (*, '(A,I0,A,I0,A,I0,A)') '  -x  warm-up iterations per size (default ', skip_small, ', ', &
            skip_large, ' above ', large_message, ' bytes)'
        end if
        parse_options = 0
        return
      end if
      if (k == command_argument_count() .or. (a /= '-m' .and. a /= '-i' .and. a /= '-x')) then
        if (rank == 0) write (0, '(3A)') "osu_latency_f: unknown or incomplete option '", trim(a), "' (try -h)"
        parse_options = 2
        return
      end if
      call get_command_argument(k + 1, v)
      k = k + 2
      ios = 0
      if (a == '-m') then
        colon = index(v, ':')
        if (colon > 1) read (v(1:colon - 1), *, iostat=ios) min_size
        if (ios == 0) read (v(colon + 1:), *, iostat=ios) max_size
        if (ios /= 0 .or. min_size < 0 .or. min_size > max_size) ios = 1
      else
        read (v, *, iostat=ios) n
        if (ios == 0 .and. n < merge(0, 1, a == '-x')) ios = 1 ! -x 0 is allowed, -i 0 is not
        if (a == '-i') then
          iters_small = n
          iters_large = n
        else
          skip_small = n
          skip_large = n
        end if
      end if
      if (ios /= 0) then
        if (rank == 0) write (0, '(5A)') "osu_latency_f: bad value '", trim(v), "' for ", trim(a)
        parse_options = 2
        return
      end if
    end do
  end function parse_options

end program osu_latency_f
