C tests/dropin/f77_rw.f -- a netCDF-Fortran 77 (nf_*) client of the
C drop-in comparisons (clients_check.sh), built at check time with
C gfortran and Debian's netCDF-Fortran and run once with netCDF-C and
C once through the wrapper.  Usage: f77_rw OUT KIND IN
C   OUT   the file written (KIND classic, 64bit, cdf5 or nc4classic)
C   IN    a file of the classic.cdl schema (read: temp, time, name)
C Writes OUT with the typed nf_put_vara/vars/varm/var1 calls and a
C record dimension, reads it back with the matching nf_get_ calls and
C reads IN with strides, printing every value; a failed call prints
C its message and stops with status 2.
      program f77rw
      implicit none
      include 'netcdf.inc'
      integer nx, ny
      parameter (nx = 4, ny = 3)
      character*256 out, in
      character*16 kind
      character*40 title
      character*8 names(4)
      integer cmode, ncid, st, xd, yd, td, vid, iid, mid, tid
      integer ndims, nvars, natts, unlim, alen, i, j, r
      integer dims(3), start(3), count(3), stride(3), imap(3)
      real rec(nx, ny), back(nx, ny, 2), temp(3, 2)
      integer ival(2, 2), iback(nx, ny), one(1), rr(1)
      double precision tr(ny, nx), tback(ny, nx), times(5)

      call getarg(1, out)
      call getarg(2, kind)
      call getarg(3, in)
      if (kind .eq. 'classic') then
        cmode = NF_CLOBBER
      else if (kind .eq. '64bit') then
        cmode = ior(NF_CLOBBER, NF_64BIT_OFFSET)
      else if (kind .eq. 'cdf5') then
        cmode = ior(NF_CLOBBER, NF_64BIT_DATA)
      else if (kind .eq. 'nc4classic') then
        cmode = ior(ior(NF_CLOBBER, NF_NETCDF4), NF_CLASSIC_MODEL)
      else
        print '(A)', 'usage: f77_rw OUT KIND IN'
        stop 1
      end if

      call chk(nf_create(out, cmode, ncid), 'create')
      call chk(nf_def_dim(ncid, 'time', NF_UNLIMITED, td), 'dim time')
      call chk(nf_def_dim(ncid, 'y', ny, yd), 'dim y')
      call chk(nf_def_dim(ncid, 'x', nx, xd), 'dim x')
      dims(1) = xd
      dims(2) = yd
      dims(3) = td
      call chk(nf_def_var(ncid, 'rec', NF_REAL, 3, dims, vid),
     +     'var rec')
      call chk(nf_put_att_real(ncid, vid, '_FillValue', NF_REAL, 1,
     +     -9.5), 'att fill')
      call chk(nf_def_var(ncid, 'ival', NF_INT, 2, dims, iid),
     +     'var ival')
      call chk(nf_def_var(ncid, 'mapped', NF_DOUBLE, 2, dims, mid),
     +     'var mapped')
      call chk(nf_def_var(ncid, 'time', NF_DOUBLE, 1, dims(3), tid),
     +     'var time')
      call chk(nf_put_att_text(ncid, tid, 'units', 19,
     +     'days since 1990-1-1'), 'att units')
      call chk(nf_put_att_text(ncid, NF_GLOBAL, 'title', 16,
     +     'F77 nf_ client 1'), 'att title')
      call chk(nf_enddef(ncid), 'enddef')

      do r = 1, 2
        do j = 1, ny
          do i = 1, nx
            rec(i, j) = 100.0 * r + 10.0 * j + i
          end do
        end do
        start(1) = 1
        start(2) = 1
        start(3) = r
        count(1) = nx
        count(2) = ny
        count(3) = 1
        call chk(nf_put_vara_real(ncid, vid, start, count, rec),
     +       'put_vara rec')
        rr(1) = r
        call chk(nf_put_var1_double(ncid, tid, rr, 10.0d0 * r),
     +       'put_var1 time')
      end do
C     x = 1, 3 and y = 1, 3; the rest stays at the default fill value
      do j = 1, 2
        do i = 1, 2
          ival(i, j) = 10 * j + i
        end do
      end do
      count(1) = 2
      count(2) = 2
      stride(1) = 2
      stride(2) = 2
      call chk(nf_put_vars_int(ncid, iid, start, count, stride, ival),
     +     'put_vars ival')
      one(1) = -77
      start(1) = nx
      start(2) = ny
      call chk(nf_put_var1_int(ncid, iid, start, one), 'put_var1 ival')
C     memory holds (y, x): the map makes x the slower index in memory
      do i = 1, nx
        do j = 1, ny
          tr(j, i) = i + j / 10.0d0
        end do
      end do
      start(1) = 1
      start(2) = 1
      count(1) = nx
      count(2) = ny
      stride(1) = 1
      stride(2) = 1
      imap(1) = ny
      imap(2) = 1
      call chk(nf_put_varm_double(ncid, mid, start, count, stride,
     +     imap, tr), 'put_varm mapped')
      call chk(nf_close(ncid), 'close')

      call chk(nf_open(out, NF_NOWRITE, ncid), 'open')
      call chk(nf_inq(ncid, ndims, nvars, natts, unlim), 'inq')
      print '(A,4I4)', 'ndims nvars natts unlimdim:', ndims, nvars,
     +     natts, unlim
      call chk(nf_inq_attlen(ncid, NF_GLOBAL, 'title', alen), 'attlen')
      title = ' '
      call chk(nf_get_att_text(ncid, NF_GLOBAL, 'title', title),
     +     'get title')
      print '(A,I3,1X,A)', 'title:', alen, title(1:alen)
      call chk(nf_inq_varid(ncid, 'rec', vid), 'varid rec')
      call chk(nf_get_var_real(ncid, vid, back), 'get_var rec')
      print '(A)', 'rec:'
      print '(4F8.1)', back
      call chk(nf_inq_varid(ncid, 'ival', iid), 'varid ival')
      call chk(nf_get_var_int(ncid, iid, iback), 'get_var ival')
      print '(A)', 'ival:'
      print '(4I12)', iback
      call chk(nf_inq_varid(ncid, 'mapped', mid), 'varid mapped')
      call chk(nf_get_varm_double(ncid, mid, start, count, stride,
     +     imap, tback), 'get_varm mapped')
      print '(A)', 'mapped:'
      print '(3F7.2)', tback
      call chk(nf_close(ncid), 'close 2')

C     the input file: temp(time, lat, lon) read with strides
      call chk(nf_open(in, NF_NOWRITE, ncid), 'open input')
      call chk(nf_inq_varid(ncid, 'temp', vid), 'varid temp')
      start(1) = 2
      start(2) = 1
      start(3) = 1
      count(1) = 3
      count(2) = 2
      count(3) = 1
      stride(1) = 2
      stride(2) = 3
      stride(3) = 1
      call chk(nf_get_vars_real(ncid, vid, start, count, stride, temp),
     +     'get_vars temp')
      print '(A)', 'input temp, strided:'
      print '(3F9.2)', temp
      call chk(nf_inq_varid(ncid, 'time', tid), 'varid time')
      call chk(nf_get_var_double(ncid, tid, times), 'get_var time')
      print '(A,5F8.2)', 'input time:', times
      call chk(nf_inq_varid(ncid, 'name', vid), 'varid name')
      call chk(nf_get_var_text(ncid, vid, names), 'get_var name')
      print '(A,4(1X,A))', 'input name:', names
      st = nf_inq_varid(ncid, 'nosuch', vid)
      print '(A,I5,1X,A)', 'nosuch:', st, trim(nf_strerror(st))
      call chk(nf_close(ncid), 'close input')
      end

      subroutine chk(status, what)
      implicit none
      include 'netcdf.inc'
      integer status
      character*(*) what
      if (status .ne. NF_NOERR) then
        print '(A,A,A)', what, ': ', nf_strerror(status)
        stop 2
      end if
      end
