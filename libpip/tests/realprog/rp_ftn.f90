! SPDX-License-Identifier: BSD-2-Clause
! rp_ftn.f90: a Fortran program (formatted I/O to a unit, an allocatable
! array, intrinsics) that writes to the file named by its first argument;
! used by test_pip_corpus.sh.
program rp_ftn
  implicit none
  character(len=4096) :: path
  integer :: i, u
  real(8), allocatable :: a(:)
  if (command_argument_count() /= 1) then
     write (0, '(a)') 'usage: rp_ftn OUTFILE'
     stop 2
  end if
  call get_command_argument(1, path)
  allocate (a(1000))
  do i = 1, 1000
     a(i) = sqrt(real(i, 8))
  end do
  open (newunit=u, file=trim(path), status='replace', action='write')
  do i = 1, 100
     write (u, '(i5,1x,f14.8,1x,f16.6)') i, a(i * 10), sum(a(1:i * 10))
  end do
  close (u)
  deallocate (a)
end program rp_ftn
