! tests/v3/v3fortran.f90 -- a netCDF-Fortran program (nf90_* and nf_* calls)
! whose netCDF-Fortran library calls into the v3 library it is linked
! with: chunking, filters and chunk caches (netCDF-Fortran's int helpers),
! data, and the parallel create of a serial library.  Each call's status
! and every answer is printed; v3fortran_check.sh compares the output and
! the file made over netCDF-C and over libncslab_netcdf.
program v3fortran
  use netcdf
  implicit none
  integer :: ncid, x, t, v, w, st, i, nd, lvl, csize, cnel, cpre
  logical :: sh, cont
  integer :: chunks(2), vals(4, 3), back(4, 3)
  character(len=256) :: path
  integer, external :: nf_set_chunk_cache, nf_get_chunk_cache, nf_inq_var_chunking, nf_get_var_chunk_cache
  call get_command_argument(1, path)
  do i = 1, 4
    vals(i, :) = [i * 10 + 1, i * 10 + 2, i * 10 + 3]
  end do
  call chk('create', nf90_create(trim(path), ior(NF90_NETCDF4, NF90_CLASSIC_MODEL), ncid))
  call chk('def_dim x', nf90_def_dim(ncid, 'x', 4, x))
  call chk('def_dim t', nf90_def_dim(ncid, 't', NF90_UNLIMITED, t))
  call chk('def_var v', nf90_def_var(ncid, 'v', NF90_INT, [x, t], v, chunksizes=[2, 1], &
       shuffle=.true., deflate_level=3, cache_size=4, cache_nelems=101, cache_preemption=50))
  call chk('def_var w', nf90_def_var(ncid, 'w', NF90_DOUBLE, [x], w, contiguous=.true.))
  call chk('put_att', nf90_put_att(ncid, v, 'units', 'm'))
  st = nf90_inquire_variable(ncid, v, ndims=nd, shuffle=sh, deflate_level=lvl, &
       cache_size=csize, cache_nelems=cnel, cache_preemption=cpre)
  print "(a, 2i6, l3, 4i6)", "inquire v", st, nd, sh, lvl, csize, cnel, cpre
  call chk('enddef', nf90_enddef(ncid))
  call chk('put v', nf90_put_var(ncid, v, vals))
  call chk('put w', nf90_put_var(ncid, w, [1.5d0, 2.5d0, 3.5d0, 4.5d0]))
  call chk('set_cache', nf_set_chunk_cache(8000000, 211, 25))
  st = nf_get_chunk_cache(csize, cnel, cpre)
  print '(a, 4i10)', 'chunk cache', st, csize, cnel, cpre
  st = nf_get_var_chunk_cache(ncid, v, csize, cnel, cpre)
  print '(a, 4i10)', 'var chunk cache', st, csize, cnel, cpre
  chunks = -9
  st = nf_inq_var_chunking(ncid, v, i, chunks)
  print '(a, 4i6)', 'inq chunking', st, i, chunks
  call chk('close', nf90_close(ncid))
  call chk('open', nf90_open(trim(path), NF90_NOWRITE, ncid))
  call chk('get v', nf90_get_var(ncid, v, back))
  print '(a, 12i4)', 'values', back
  st = nf90_inquire_variable(ncid, w, contiguous=cont)
  print "(a, i4, l3)", "w contiguous", st, cont
  st = nf90_inquire_variable(ncid, v, shuffle=sh, deflate_level=lvl)
  print "(a, i4, l3, i4)", "v filters", st, sh, lvl
  call chk('close', nf90_close(ncid))
  st = nf90_create_par(trim(path) // '.par', NF90_CLOBBER, 0, 0, ncid)
  print '(a, i6)', 'create_par', st
contains
  subroutine chk(what, status)
    character(len=*), intent(in) :: what
    integer, intent(in) :: status
    print '(a, 1x, a, i6)', what, ':', status
  end subroutine chk
end program v3fortran
