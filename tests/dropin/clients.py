# tests/dropin/clients.py -- the Python client of the drop-in comparisons
# (clients_check.sh), run by /usr/bin/python3 (Debian's, with netCDF4 and
# xarray) once with netCDF-C and once through the wrapper; the two
# outputs must be the same text.
#
#   clients.py read FILE...   prints, for each file, what netCDF4 and
#                             xarray read from it: the format, dimensions,
#                             attributes, and every variable's values raw
#                             (auto mask and scale off), masked and scaled,
#                             sliced with strides, point by point, and as
#                             xarray decodes them (times, packing, fill)
#   clients.py write DIR      writes classic files into DIR with netCDF4
#                             (CDF-1, CDF-2) and xarray (CDF-1), then reads
#                             each back and prints it as `read` does
#
# Values are printed as a SHA-256 of their bytes plus their first few
# elements, so that a difference shows both that and where it starts.
# The library version is not printed: through the wrapper it says that
# ncslab serves, which is the one thing allowed to differ.
import hashlib
import sys
import warnings

import netCDF4
import numpy as np
import xarray as xr

warnings.simplefilter("ignore")


def digest(a):
    a = np.asarray(a)
    if a.dtype.kind in "OUS":
        flat = [str(x) for x in a.ravel()]
        return "%s %s" % (hashlib.sha256("\0".join(flat).encode()).hexdigest()[:16],
                          flat[:4])
    b = np.ascontiguousarray(a)
    head = ", ".join(repr(x) for x in b.ravel()[:4].tolist())
    return "%s %s %s [%s]" % (a.dtype, a.shape,
                              hashlib.sha256(b.tobytes()).hexdigest()[:16], head)


def masked(a):
    """a masked array as its filled data and its mask, both digested"""
    m = np.ma.getmaskarray(a)
    return "mask %d/%d %s data %s" % (m.sum(), m.size, digest(m),
                                      digest(np.ma.filled(a, 0)))


def attrs(obj):
    return ", ".join("%s=%r" % (k, obj.getncattr(k)) for k in obj.ncattrs())


def read_netcdf4(path):
    with netCDF4.Dataset(path) as ds:
        print("  data_model %s disk_format %s" % (ds.data_model, ds.disk_format))
        for name, d in ds.dimensions.items():
            print("  dim %s %d%s" % (name, len(d), " unlimited" if d.isunlimited() else ""))
        print("  global %s" % attrs(ds))
        for name, v in ds.variables.items():
            print("  var %s %s %s %s" % (name, v.dtype, v.dimensions, v.shape))
            print("    attrs %s" % attrs(v))
            print("    filters %s endian %s" % (v.filters(), v.endian()))
            if v.dtype == np.dtype("S1") or v.dtype == str:
                v.set_auto_chartostring(False)
            v.set_auto_maskandscale(False)
            print("    raw %s" % digest(v[...]))
            v.set_auto_maskandscale(True)
            print("    scaled %s" % masked(v[...]))
            if v.ndim >= 1 and v.shape[0] > 0:
                sl = tuple(slice(None, None, 2 + k) for k in range(v.ndim))
                print("    strided %s" % masked(v[sl]))
                rev = tuple(slice(None, None, -1) for k in range(v.ndim))
                print("    reversed %s" % masked(v[rev]))
                point = tuple(n - 1 for n in v.shape)
                print("    last point %s" % masked(v[point]))
                if v.ndim >= 2:
                    print("    fancy %s" % masked(v[[0, v.shape[0] - 1], ...]))


def read_xarray(path, **kw):
    with xr.open_dataset(path, engine="netcdf4", **kw) as ds:
        ds.load()
        print("  xarray%s dims %s" % (kw and " " + repr(kw) or "",
                                      sorted(ds.sizes.items())))
        for name in sorted(ds.variables):
            v = ds.variables[name]
            vals = v.values
            if vals.dtype.kind == "M":
                vals = np.datetime_as_string(vals, unit="s")
            print("    %s %s %s" % (name, v.dims, digest(vals)))
            print("      attrs %s encoding %s" % (
                sorted((k, str(a)) for k, a in v.attrs.items()),
                sorted((k, str(e)) for k, e in v.encoding.items()
                       if k in ("dtype", "scale_factor", "add_offset", "_FillValue",
                                "units", "calendar", "zlib", "shuffle",
                                "fletcher32", "chunksizes", "contiguous"))))


def read(paths):
    for path in paths:
        print("file %s" % path.rsplit("/", 1)[-1])
        read_netcdf4(path)
        read_xarray(path)
        read_xarray(path, decode_times=False, mask_and_scale=False)


def write(outdir):
    paths = []
    for fmt, name in (("NETCDF3_CLASSIC", "py_cdf1.nc"),
                      ("NETCDF3_64BIT_OFFSET", "py_cdf2.nc")):
        path = "%s/%s" % (outdir, name)
        with netCDF4.Dataset(path, "w", format=fmt) as ds:
            ds.title = "written by netCDF4-python"
            ds.createDimension("time", None)
            ds.createDimension("y", 3)
            ds.createDimension("x", 4)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "days since 2010-01-01"
            v = ds.createVariable("v", "f4", ("time", "y", "x"), fill_value=-1.0)
            i = ds.createVariable("i", "i2", ("y", "x"))
            p = ds.createVariable("p", "i2", ("time", "x"))
            p.scale_factor = 0.5
            p.add_offset = 100.0
            c = ds.createVariable("c", "S1", ("y", "x"))
            t[0:3] = [0.0, 0.5, 2.0]
            v[0] = np.arange(12, dtype="f4").reshape(3, 4)
            v[2, ::2, 1::2] = [[7.5, 8.5], [9.5, 10.5]]  # record 1 stays fill
            i[...] = np.arange(12).reshape(3, 4) * -3
            i[1, 1] = np.ma.masked
            p[0:2, :] = [[100.0, 100.5, 101.0, 99.5], [0.5, 1.0, 1.5, 2.0]]
            c[...] = netCDF4.stringtochar(np.array(["ab", "cde", ""], "S4"))
            ds.renameVariable("i", "ints")
            ds.sync()
            ds.history = "attribute added after data"
        paths.append(path)
    path = "%s/xr_cdf1.nc" % outdir
    ds = xr.Dataset(
        {"temp": (("time", "lat"), np.arange(8, dtype="f4").reshape(4, 2) + 0.25,
                  {"units": "K"}),
         "count": (("lat",), np.array([3, -4], dtype="i4"))},
        coords={"time": np.array(["2001-01-01", "2001-01-02", "2001-01-04", "2001-02-01"],
                                 dtype="datetime64[ns]"),
                "lat": ("lat", np.array([-10.0, 10.0]), {"units": "degrees_north"})},
        attrs={"title": "written by xarray"})
    ds.to_netcdf(path, format="NETCDF3_CLASSIC", engine="netcdf4",
                 unlimited_dims=["time"],
                 encoding={"time": {"units": "days since 2001-01-01", "dtype": "f8"},
                           "temp": {"_FillValue": -9999.0}})
    paths.append(path)
    read(paths)


def main(argv):
    if len(argv) >= 3 and argv[1] == "read":
        read(argv[2:])
    elif len(argv) == 3 and argv[1] == "write":
        write(argv[2])
    else:
        sys.stderr.write("usage: clients.py read FILE... | write DIR\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
