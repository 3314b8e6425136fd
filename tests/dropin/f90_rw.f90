! tests/dropin/f90_rw.f90 -- a netCDF-Fortran 90 client of the drop-in
! comparisons (clients_check.sh), built at check time with gfortran and
! Debian's netCDF-Fortran and run once with netCDF-C and once through the
! wrapper.  Usage: f90_rw FILE KIND, KIND one of classic, 64bit, cdf5,
! nc4classic, nc4.
!
! Writes FILE with a record dimension: whole records with start/count,
! a strided write that leaves fill values between the elements, a
! transposing write through a map, a scalar, attributes; reopens it for
! writing to add an attribute in define mode and append a record; then
! reads everything back whole, strided, mapped and element by element
! and prints the values, so the printed text and the file both depend on
! every call.  Any failed call prints its message and stops with status 2.
program f90_rw
  use netcdf
  implicit none
  integer, parameter :: nx = 5, ny = 4
  character(len=256) :: path
  character(len=16) :: kind
  integer :: cmode, ncid, xd, yd, td, sd, fid, iid, did, mid, lid, sid
  integer :: ndims, nvars, natts, unlim, dlen, i, j, r
  real :: rec(nx, ny), back(nx, ny, 4), strided(3, 2, 2)
  integer :: ival(3, 2), iback(nx, ny)
  double precision :: tr(ny, nx), tback(ny, nx), dtime(4), scal
  character(len=6) :: labels(ny), lback(ny)
  character(len=64) :: title
  character(len=NF90_MAX_NAME) :: dname

  call get_command_argument(1, path)
  call get_command_argument(2, kind)
  select case (trim(kind))
  case ('classic');    cmode = NF90_CLOBBER
  case ('64bit');      cmode = ior(NF90_CLOBBER, NF90_64BIT_OFFSET)
  case ('cdf5');       cmode = ior(NF90_CLOBBER, NF90_64BIT_DATA)
  case ('nc4classic'); cmode = ior(ior(NF90_CLOBBER, NF90_NETCDF4), NF90_CLASSIC_MODEL)
  case ('nc4');        cmode = ior(NF90_CLOBBER, NF90_NETCDF4)
  case default
     print '(A)', 'usage: f90_rw FILE classic|64bit|cdf5|nc4classic|nc4'
     stop 1
  end select

  call check(nf90_create(trim(path), cmode, ncid), 'create')
  call check(nf90_def_dim(ncid, 'time', NF90_UNLIMITED, td), 'def_dim time')
  call check(nf90_def_dim(ncid, 'y', ny, yd), 'def_dim y')
  call check(nf90_def_dim(ncid, 'x', nx, xd), 'def_dim x')
  call check(nf90_def_dim(ncid, 'strlen', 6, sd), 'def_dim strlen')
  call check(nf90_def_var(ncid, 'time', NF90_DOUBLE, (/ td /), did), 'def_var time')
  call check(nf90_put_att(ncid, did, 'units', 'hours since 2001-02-03 04:05:06'), 'att units')
  call check(nf90_def_var(ncid, 'field', NF90_FLOAT, (/ xd, yd, td /), fid), 'def_var field')
  call check(nf90_put_att(ncid, fid, '_FillValue', -1.0e30), 'att fill')
  call check(nf90_put_att(ncid, fid, 'valid_range', (/ -100.0, 1000.0 /)), 'att range')
  call check(nf90_def_var(ncid, 'ival', NF90_INT, (/ xd, yd /), iid), 'def_var ival')
  call check(nf90_def_var(ncid, 'mapped', NF90_DOUBLE, (/ xd, yd /), mid), 'def_var mapped')
  call check(nf90_def_var(ncid, 'label', NF90_CHAR, (/ sd, yd /), lid), 'def_var label')
  call check(nf90_def_var(ncid, 'scalar', NF90_DOUBLE, sid), 'def_var scalar')
  call check(nf90_put_att(ncid, NF90_GLOBAL, 'title', 'netCDF-Fortran 90 client'), 'att title')
  call check(nf90_put_att(ncid, NF90_GLOBAL, 'ints', (/ 1, -2, 3 /)), 'att ints')
  call check(nf90_enddef(ncid), 'enddef')

  ! three whole records, one call each (start/count on the record dimension)
  do r = 1, 3
     do j = 1, ny
        do i = 1, nx
           rec(i, j) = 100.0 * r + 10.0 * j + i
        end do
     end do
     call check(nf90_put_var(ncid, fid, rec, start=(/ 1, 1, r /), count=(/ nx, ny, 1 /)), 'put field')
     call check(nf90_put_var(ncid, did, 1.5d0 * (r - 1), start=(/ r /)), 'put time')
  end do
  ! x = 1, 3, 5 and y = 1, 3: the other elements stay at the fill value
  do j = 1, 2
     do i = 1, 3
        ival(i, j) = 1000 * j + i
     end do
  end do
  call check(nf90_put_var(ncid, iid, ival, start=(/ 1, 1 /), count=(/ 3, 2 /), stride=(/ 2, 2 /)), 'put ival')
  ! memory holds (y, x); the map makes x the slower index in memory
  do i = 1, nx
     do j = 1, ny
        tr(j, i) = i + j / 10.0d0
     end do
  end do
  call check(nf90_put_var(ncid, mid, tr, start=(/ 1, 1 /), count=(/ nx, ny /), map=(/ ny, 1 /)), 'put mapped')
  labels = (/ 'north ', 'east  ', 'south ', 'west  ' /)
  call check(nf90_put_var(ncid, lid, labels), 'put label')
  call check(nf90_put_var(ncid, sid, -2.5d-3), 'put scalar')
  call check(nf90_close(ncid), 'close')

  ! reopen: an attribute in define mode, then a fourth record
  call check(nf90_open(trim(path), NF90_WRITE, ncid), 'open write')
  call check(nf90_redef(ncid), 'redef')
  call check(nf90_put_att(ncid, NF90_GLOBAL, 'history', 'appended a record'), 'att history')
  call check(nf90_enddef(ncid), 'enddef 2')
  rec = -5.0
  call check(nf90_put_var(ncid, fid, rec, start=(/ 1, 1, 4 /), count=(/ nx, ny, 1 /)), 'put record 4')
  call check(nf90_put_var(ncid, did, 99.0d0, start=(/ 4 /)), 'put time 4')
  call check(nf90_close(ncid), 'close 2')

  call check(nf90_open(trim(path), NF90_NOWRITE, ncid), 'open')
  call check(nf90_inquire(ncid, ndims, nvars, natts, unlim), 'inquire')
  print '(A,4I4)', 'ndims nvars natts unlimdim:', ndims, nvars, natts, unlim
  do i = 1, ndims
     call check(nf90_inquire_dimension(ncid, i, dname, dlen), 'inquire_dimension')
     print '(A,I2,1X,A,I4)', 'dim', i, trim(dname), dlen
  end do
  call check(nf90_get_att(ncid, NF90_GLOBAL, 'title', title), 'get title')
  print '(A,A)', 'title: ', trim(title)
  call check(nf90_inq_varid(ncid, 'field', fid), 'inq_varid field')
  call check(nf90_get_var(ncid, fid, back), 'get field')
  print '(A)', 'field:'
  print '(5F9.2)', back
  call check(nf90_get_var(ncid, fid, strided, start=(/ 1, 2, 2 /), count=(/ 3, 2, 2 /), stride=(/ 2, 2, 2 /)), &
       'get field strided')
  print '(A)', 'field strided:'
  print '(3F9.2)', strided
  call check(nf90_inq_varid(ncid, 'ival', iid), 'inq_varid ival')
  call check(nf90_get_var(ncid, iid, iback), 'get ival')
  print '(A)', 'ival:'
  print '(5I12)', iback
  call check(nf90_inq_varid(ncid, 'mapped', mid), 'inq_varid mapped')
  call check(nf90_get_var(ncid, mid, tback, start=(/ 1, 1 /), count=(/ nx, ny /), map=(/ ny, 1 /)), 'get mapped')
  print '(A)', 'mapped (read back through the map):'
  print '(4F8.2)', tback
  call check(nf90_inq_varid(ncid, 'time', did), 'inq_varid time')
  call check(nf90_get_var(ncid, did, dtime), 'get time')
  print '(A,4F8.2)', 'time:', dtime
  call check(nf90_get_var(ncid, did, dtime(1), start=(/ 3 /)), 'get time 3')
  print '(A,F8.2)', 'time(3):', dtime(1)
  call check(nf90_inq_varid(ncid, 'label', lid), 'inq_varid label')
  call check(nf90_get_var(ncid, lid, lback), 'get label')
  print '(A,4(1X,A))', 'label:', lback
  call check(nf90_inq_varid(ncid, 'scalar', sid), 'inq_varid scalar')
  call check(nf90_get_var(ncid, sid, scal), 'get scalar')
  print '(A,ES12.4)', 'scalar:', scal
  ! an error and its message
  i = nf90_inq_varid(ncid, 'nosuch', j)
  print '(A,I5,1X,A)', 'inq_varid nosuch:', i, trim(nf90_strerror(i))
  i = nf90_get_var(ncid, fid, rec, start=(/ 1, 1, 9 /), count=(/ nx, ny, 1 /))
  print '(A,I5,1X,A)', 'read past the records:', i, trim(nf90_strerror(i))
  call check(nf90_close(ncid), 'close 3')

contains

  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= NF90_NOERR) then
       print '(A,A,A)', what, ': ', trim(nf90_strerror(status))
       stop 2
    end if
  end subroutine check

end program f90_rw
