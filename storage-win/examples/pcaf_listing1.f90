! SPDX-License-Identifier: BSD-2-Clause
!
! pcaf_listing1.f90: the coarray program of the persistent-coarrays paper's
! Listing 1, made runnable on any number of images (>= 2) and made to show
! persistence.  It is plain Fortran 2008: under plain OpenCoarrays its
! coarrays live in memory; with libmpi-storagewin preloaded and
! PCAF_ENABLED=true they live in files under PCAF_PATH, and a second run
! starts from what the first one left there.
!
!   caf -o pcaf_listing1 pcaf_listing1.f90
!   PCAF_ENABLED=true PCAF_PATH=/tmp/pc \
!     LD_PRELOAD=libmpi-storagewin.so mpiexec -n 4 ./pcaf_listing1
program pcaf_listing1
  implicit none
  ! Declare two coarrays and other variables (Listing 1, line 3), plus the
  ! bookkeeping that makes persistence visible: how many runs completed and
  ! a checksum of x and y as they were at the end of the last run.
  real, dimension(10), codimension[*] :: x, y
  integer, codimension[*] :: runs
  real, codimension[*] :: check
  integer :: num_img, img, i, other
  real :: b1, bn
  real, dimension(10) :: ex, ey
  character(len=8) :: verdict

  ! Retrieve the index and the number of images
  img = this_image()
  num_img = num_images()

  if (runs == 0) then
    write (*, '(a,i0,a)') 'image ', img, ': fresh coarrays'
  else
    verdict = 'MISMATCH'
    if (abs(checksum() - check) <= 1.0e-3 * max(1.0, abs(check))) verdict = 'OK'
    write (*, '(a,i0,a,i0,a,a)') 'image ', img, ': restored after run ', runs, &
      ', checksum ', trim(verdict)
  end if
  sync all

  do i = 1, 10
    x(i) = real(1000 * (runs + 1) + 10 * img + i)
    y(i) = -x(i)
  end do
  sync all

  ! Perform certain operations across images (Listing 1, lines 11-13; the
  ! listing's image 7 becomes the last image, image 4 the fourth or last)
  other = min(4, num_img)
  x(2) = x(3)[num_img]      ! get value from the last image
  sync all
  if (img == 1) then
    x(6)[other] = x(1)      ! put value on image `other`
    x(:)[2] = y(:)          ! put a complete array on image 2
  end if
  ! Enforce synchronization point, which guarantees a data synchronization
  ! with storage as well
  sync all

  ! Remote array transfer, with individual synchronization
  if (img == 1) then
    y(:)[num_img] = x(:)
    sync images(num_img)
  else if (img == num_img) then
    sync images([1])
  end if

  ! What every image must hold now, worked out by hand from the statements
  ! above (b1, bn: the base values of image 1 and of the last image).
  b1 = real(1000 * (runs + 1) + 10)
  bn = real(1000 * (runs + 1) + 10 * num_img)
  do i = 1, 10
    ex(i) = real(1000 * (runs + 1) + 10 * img + i)
    ey(i) = -ex(i)
  end do
  ex(2) = bn + 3.0
  if (img == other) ex(6) = b1 + 1.0
  if (img == 2) ex(:) = [(-(b1 + real(i)), i = 1, 10)]
  if (img == num_img) then
    ey(:) = [(b1 + real(i), i = 1, 10)]
    ey(2) = bn + 3.0
  end if
  verdict = 'WRONG'
  if (all(x == ex) .and. all(y == ey)) verdict = 'OK'

  runs = runs + 1
  check = checksum()
  sync all
  write (*, '(a,i0,a,i0,a,a,a,f12.1)') 'image ', img, ': run ', runs, &
    ' done, values ', trim(verdict), ', checksum ', check

contains

  real function checksum()
    integer :: k
    checksum = 0.0
    do k = 1, 10
      checksum = checksum + real(k) * x(k) + 0.5 * real(k) * y(k)
    end do
  end function checksum

end program pcaf_listing1
