/*
 * quantize_check.c -- the quantization cases where netCDF-C 4.9.0 is wrong
 * (doc/v3.md, "Where netCDF-C is wrong"): BitGroom at 7 digits of a float,
 * granular BitRound of infinities and NaNs.  Build it against either
 * library and compare the bits it prints:
 *   cc quantize_check.c -lnetcdf -lm
 *   cc quantize_check.c $(pkg-config --cflags --libs ncslab-netcdf) -lm
 */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
static void run(int mode, int nsd, int xt) {
  int ncid, d, v;
  nc_create("q.nc", NC_NETCDF4|NC_CLOBBER, &ncid);
  nc_def_dim(ncid,"x",8,&d);
  nc_def_var(ncid,"v",xt,1,&d,&v);
  int r = nc_def_var_quantize(ncid, v, mode, nsd);
  nc_enddef(ncid);
  double in[8] = { INFINITY, -INFINITY, NAN, -0.0, 1.2345678, 3.14159265358979, 1e30, 1e-30 };
  nc_put_var_double(ncid, v, in);
  double out[8]; float fo[8];
  if (xt == NC_FLOAT) nc_get_var_float(ncid, v, fo); else nc_get_var_double(ncid, v, out);
  printf("mode %d nsd %d type %d (def %d):", mode, nsd, xt, r);
  for (int i = 0; i < 8; i++) {
    if (xt == NC_FLOAT) { unsigned u; memcpy(&u, &fo[i], 4); printf(" %08x", u); }
    else { unsigned long long u; memcpy(&u, &out[i], 8); printf(" %016llx", u); }
  }
  printf("\n");
  nc_close(ncid);
}
int main(void){
  for (int m = 1; m <= 3; m++) {
    int maxf = m == 3 ? 23 : 7, maxd = m == 3 ? 52 : 15;
    run(m, maxf, NC_FLOAT); run(m, 1, NC_FLOAT); run(m, maxd, NC_DOUBLE); run(m, 1, NC_DOUBLE);
  }
}
