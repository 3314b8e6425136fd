"""tests/tools/writers/writers.py -- files from the Python writers.

    python3 writers.py OUTDIR

Writes, into OUTDIR, the same small CF data set (a record time axis with
bounds, latitude and longitude, a scalar height coordinate, station names
as a char array, a packed variable, fill values, attributes of every
classic type) with each Python writer, in each classic-model format it can
write:

    netcdf4_<fmt>.nc       netCDF4-python, formats nc3 nc6 cdf5 nc7 nc4
    netcdf4_many_<fmt>.nc  netCDF4-python, nc3 and nc7: 300 variables with
                           attributes (dense HDF5 storage, large headers)
    xarray_netcdf4_<fmt>   xarray, engine netcdf4: nc3 nc6 nc7 nc4, and
                           nc7_zlib with deflate, chunk and contiguous
                           encodings
    xarray_h5netcdf.nc     xarray, engine h5netcdf (netCDF-4)
    xarray_scipy_<fmt>     xarray, engine scipy: nc3 nc6, without the
                           scalar coordinate
    xarray_scipy_scalar_nc3.nc  with it: scipy writes a file netCDF-C
                           refuses (the scalar's data overlaps the records)
    h5netcdf_chars.nc      h5netcdf's own API, text attributes as bytes
    h5netcdf_strings.nc    the same with Python str attributes (HDF5
                           variable-length strings, netCDF's NC_STRING)
    h5netcdf_legacy.nc     h5netcdf's netCDF4-python-like legacy API
    h5py_scales.nc         h5py alone: dimension scales, as a netCDF-4
                           file but without _Netcdf4Dimid or _NCProperties
    h5py_deleted.nc        h5py, a variable deleted after its dimension
                           scale was attached (a dangling back-reference)

"nc4" is netCDF-4 not marked as classic model, holding only classic-model
things.  A writer whose module is missing is reported on stdout as
"SKIP <writer>: <reason>" and the others still run.  Values encode their
position so that a misplaced element shows where it came from.
"""

import os
import sys

OUT = sys.argv[1]
NT, NLAT, NLON = 3, 4, 5
NMANY = 300
STATIONS = ["Alpha", "Bravo", "Charlie"]


def skip(writer, why):
    print("SKIP %s: %s" % (writer, why))


def path(name):
    return os.path.join(OUT, name)


def grid_values(np):
    """tas[t, y, x] = 250 + 100 t + 10 y + x, one missing value."""
    t, y, x = np.meshgrid(np.arange(NT), np.arange(NLAT), np.arange(NLON),
                          indexing="ij")
    tas = (250 + 100 * t + 10 * y + x).astype("f4")
    pr = (1e-4 * (t * 100 + y * 10 + x)).astype("f8")
    return tas, pr


def write_netcdf4(np, netCDF4, name, fmt):
    nc4 = fmt.startswith("NETCDF4")
    tas, pr = grid_values(np)
    with netCDF4.Dataset(path(name), "w", format=fmt) as ds:
        ds.Conventions = "CF-1.8"
        ds.title = "netCDF4-python, format " + fmt
        ds.g_short = np.array([-1, 2, 3], "i2")
        ds.g_int = np.int32(7)
        ds.g_float = np.array([1.5, np.nan, np.inf], "f4")
        ds.g_double = np.array([-0.0, 1e300], "f8")
        ds.g_byte = np.array([-128, 127], "i1")
        ds.createDimension("time", None)
        ds.createDimension("lat", NLAT)
        ds.createDimension("lon", NLON)
        ds.createDimension("bnds", 2)
        ds.createDimension("station", len(STATIONS))
        ds.createDimension("name_strlen", 8)
        time = ds.createVariable("time", "f8", ("time",))
        time.units = "days since 2000-01-01"
        time.bounds = "time_bnds"
        tb = ds.createVariable("time_bnds", "f8", ("time", "bnds"))
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat.units = "degrees_north"
        lon = ds.createVariable("lon", "f4", ("lon",))
        lon.units = "degrees_east"
        height = ds.createVariable("height", "f8", ())
        height.units = "m"
        kw = {"zlib": True, "complevel": 4, "shuffle": True,
              "significant_digits": 5} if nc4 else {}
        v = ds.createVariable("tas", "f4", ("time", "lat", "lon"),
                              fill_value=np.float32(1e20), **kw)
        v.units = "K"
        v.coordinates = "height"
        kw = {"contiguous": True, "endian": "big"} if nc4 else {}
        p = ds.createVariable("pr", "i2", ("time", "lat", "lon"),
                              fill_value=np.int16(-32767))
        p.scale_factor = 1e-6
        p.add_offset = 0.0
        p.units = "kg m-2 s-1"
        orog = ds.createVariable("orog", ">f8" if nc4 else "f8",
                                 ("lat", "lon"), **kw)
        orog.units = "m"
        kw = {"fletcher32": True, "chunksizes": (2,)} if nc4 else {}
        sn = ds.createVariable("station_name", "S1",
                               ("station", "name_strlen"))
        sn.cf_role = "timeseries_id"
        flag = ds.createVariable("flag", "i1", ("time",), **kw)
        flag.flag_values = np.array([0, 1], "i1")
        lat[:] = np.linspace(-60, 60, NLAT)
        lon[:] = np.arange(NLON) * 72.0
        height[...] = 2.0
        orog[:] = np.arange(NLAT * NLON, dtype="f8").reshape(NLAT, NLON)
        sn[:] = netCDF4.stringtochar(np.array(STATIONS, "S8"))
        # two records, then a third: the record dimension grows twice
        for t0, t1 in ((0, 2), (2, 3)):
            time[t0:t1] = np.arange(t0, t1) * 30.0 + 15
            tb[t0:t1, :] = np.array([[t * 30.0, t * 30.0 + 30]
                                     for t in range(t0, t1)])
            data = tas[t0:t1].copy()
            if t0 == 0:
                data[0, 1, 2] = 1e20
            v[t0:t1] = data
            p[t0:t1] = pr[t0:t1]
            flag[t0:t1] = np.arange(t0, t1) % 2


def write_many(np, netCDF4, name, fmt):
    """NMANY variables of every classic type, each with attributes: a
    classic header past 16 KiB, and HDF5 groups and attribute lists large
    enough for dense (B-tree) storage."""
    types = ("i1", "S1", "i2", "i4", "f4", "f8")
    with netCDF4.Dataset(path(name), "w", format=fmt) as ds:
        ds.createDimension("rec", None)
        ds.createDimension("n", 3)
        for i in range(NMANY):
            t = types[i % len(types)]
            dims = ("rec", "n") if i % 7 == 0 else ("n",)
            v = ds.createVariable("v%03d" % i, t, dims)
            v.long_name = "variable number %d" % i
            v.index = np.int32(i)
            v.factor = np.float32(i / 8.0)
            if i % 50 == 0:
                for k in range(12):
                    v.setncattr("extra_%02d" % k, np.int16(k * i))
            shape = (2, 3) if len(dims) == 2 else (3,)
            if t == "S1":
                data = np.full(shape, chr(ord("a") + i % 26).encode(), "S1")
            else:
                size = 6 if len(shape) == 2 else 3
                data = (np.arange(size) + i % 100).astype(t).reshape(shape)
            v[...] = data


def netcdf4_files(np):
    try:
        import netCDF4
    except ImportError as e:
        return skip("netCDF4-python", e)
    for fmt, tag in (("NETCDF3_CLASSIC", "nc3"),
                     ("NETCDF3_64BIT_OFFSET", "nc6"),
                     ("NETCDF3_64BIT_DATA", "cdf5"),
                     ("NETCDF4_CLASSIC", "nc7"), ("NETCDF4", "nc4")):
        write_netcdf4(np, netCDF4, "netcdf4_%s.nc" % tag, fmt)
    for fmt, tag in (("NETCDF3_CLASSIC", "nc3"), ("NETCDF4_CLASSIC", "nc7")):
        write_many(np, netCDF4, "netcdf4_many_%s.nc" % tag, fmt)


def xarray_dataset(np, xr):
    tas, pr = grid_values(np)
    tas[0, 1, 2] = np.nan
    times = np.array(["2000-01-16", "2000-02-15", "2000-03-16"],
                     "datetime64[ns]")
    bnds = np.array([["2000-01-01", "2000-02-01"],
                     ["2000-02-01", "2000-03-01"],
                     ["2000-03-01", "2000-04-01"]], "datetime64[ns]")
    ds = xr.Dataset(
        {
            "tas": (("time", "lat", "lon"), tas,
                    {"units": "K", "standard_name": "air_temperature"}),
            "pr": (("time", "lat", "lon"), pr, {"units": "kg m-2 s-1"}),
            "time_bnds": (("time", "bnds"), bnds),
            "station_name": (("station",), np.array(STATIONS)),
            "count": (("time",), np.array([1, 2, 3], "i4"),
                      {"valid_range": np.array([0, 10], "i4")}),
            "flag": (("station",), np.array([0, 1, 2], "i1")),
        },
        coords={
            "time": ("time", times, {"bounds": "time_bnds"}),
            "lat": ("lat", np.linspace(-60, 60, NLAT).astype("f4"),
                    {"units": "degrees_north"}),
            "lon": ("lon", np.arange(NLON) * 72.0, {"units": "degrees_east"}),
            "height": ((), 2.0, {"units": "m"}),
        },
        attrs={"Conventions": "CF-1.8", "title": "xarray",
               "g_double": np.array([1.5, -2.5]), "g_short": np.int16(5)},
    )
    return ds


def xarray_encoding(ds):
    return {
        "pr": {"dtype": "int16", "scale_factor": 1e-6, "add_offset": 0.0,
               "_FillValue": -32767},
        "tas": {"_FillValue": 1e20},
        "time": {"units": "days since 2000-01-01", "dtype": "f8"},
        "time_bnds": {"units": "days since 2000-01-01", "dtype": "f8"},
        "station_name": {"dtype": "S1", "char_dim_name": "name_strlen"},
    }


def xarray_files(np):
    try:
        import xarray as xr
    except ImportError as e:
        return skip("xarray", e)
    ds = xarray_dataset(np, xr)
    enc = xarray_encoding(ds)
    jobs = [("netcdf4", "NETCDF3_CLASSIC", "xarray_netcdf4_nc3.nc"),
            ("netcdf4", "NETCDF3_64BIT", "xarray_netcdf4_nc6.nc"),
            ("netcdf4", "NETCDF4_CLASSIC", "xarray_netcdf4_nc7.nc"),
            ("netcdf4", "NETCDF4", "xarray_netcdf4_nc4.nc"),
            ("netcdf4", "NETCDF4_CLASSIC", "xarray_netcdf4_nc7_zlib.nc"),
            ("h5netcdf", "NETCDF4", "xarray_h5netcdf.nc"),
            ("scipy", "NETCDF3_CLASSIC", "xarray_scipy_nc3.nc"),
            ("scipy", "NETCDF3_64BIT", "xarray_scipy_nc6.nc"),
            ("scipy", "NETCDF3_CLASSIC", "xarray_scipy_scalar_nc3.nc")]
    missing = set()
    for engine, fmt, name in jobs:
        mod = {"netcdf4": "netCDF4", "h5netcdf": "h5netcdf",
               "scipy": "scipy.io"}[engine]
        try:
            __import__(mod)
        except ImportError as e:
            if engine not in missing:
                skip("xarray engine " + engine, e)
            missing.add(engine)
            continue
        # scipy lays a scalar variable out after the record variables,
        # over the second record: netCDF-C refuses the file, and ncslab
        # must too.  The other scipy files go without the scalar.
        out, e = ds, enc
        if engine == "scipy" and "scalar" not in name:
            out = ds.drop_vars("height")
        if name.endswith("_zlib.nc"):
            e = dict(enc)
            e["tas"] = {"_FillValue": 1e20, "zlib": True, "complevel": 5,
                        "shuffle": True, "chunksizes": (1, 2, NLON)}
            e["lat"] = {"contiguous": True}
        out.to_netcdf(path(name), engine=engine, format=fmt, encoding=e,
                      unlimited_dims=["time"])


def h5netcdf_files(np):
    try:
        import h5netcdf
        import h5netcdf.legacyapi
    except ImportError as e:
        return skip("h5netcdf", e)
    tas, _ = grid_values(np)
    for name, text in (("h5netcdf_chars.nc", np.bytes_),
                       ("h5netcdf_strings.nc", str)):
        with h5netcdf.File(path(name), "w") as f:
            f.attrs["title"] = text("h5netcdf")
            f.attrs["g_int"] = np.array([1, 2, 3], "i4")
            f.dimensions = {"time": None, "lat": NLAT, "lon": NLON}
            lat = f.create_variable("lat", ("lat",), "f4")
            lat[:] = np.linspace(-60, 60, NLAT)
            lat.attrs["units"] = text("degrees_north")
            v = f.create_variable("tas", ("time", "lat", "lon"), "f4",
                                  fillvalue=np.float32(-999),
                                  chunks=(1, 2, NLON), compression="gzip",
                                  shuffle=True)
            v.attrs["units"] = text("K")
            f.resize_dimension("time", NT)
            v[...] = tas
            s = f.create_variable("scalar", (), "i2")
            s[...] = 42
    with h5netcdf.legacyapi.Dataset(path("h5netcdf_legacy.nc"), "w") as f:
        f.createDimension("x", 4)
        f.createDimension("t", None)
        x = f.createVariable("x", "f8", ("x",))
        x[:] = np.arange(4) * 0.5
        x.units = np.bytes_("m")
        y = f.createVariable("y", "i4", ("t", "x"), fill_value=-1)
        y[0:2, :] = np.arange(8, dtype="i4").reshape(2, 4)
        y.long_name = np.bytes_("record variable")


def h5py_files(np):
    try:
        import h5py
    except ImportError as e:
        return skip("h5py", e)
    with h5py.File(path("h5py_scales.nc"), "w") as f:
        f.attrs["title"] = np.bytes_("h5py dimension scales")
        x = f.create_dataset("x", data=np.arange(NLON, dtype="f8") * 72)
        x.make_scale("x")
        x.attrs["units"] = np.bytes_("degrees_east")
        y = f.create_dataset("y", data=np.linspace(-60, 60, NLAT))
        y.make_scale("y")
        # a dimension without a variable, as netCDF-C names them
        n = f.create_dataset("nv", shape=(2,), dtype="f4")
        n.make_scale("This is a netCDF dimension but not a netCDF variable."
                     "         2")
        t = f.create_dataset("t", data=np.arange(NT, dtype="f8"),
                             maxshape=(None,), chunks=(1,))
        t.make_scale("t")
        tas, _ = grid_values(np)
        d = f.create_dataset("tas", data=tas, maxshape=(None, NLAT, NLON),
                             chunks=(1, NLAT, NLON), compression="gzip")
        d.attrs["units"] = np.bytes_("K")
        for i, s in enumerate((t, y, x)):
            d.dims[i].attach_scale(s)
        b = f.create_dataset("y_bnds", data=np.zeros((NLAT, 2)))
        b.dims[0].attach_scale(y)
        b.dims[1].attach_scale(n)
        c = f.create_dataset("count", data=np.arange(NLAT, dtype="i2"))
        c.dims[0].attach_scale(y)
    # A variable deleted after its dimension scale was attached: the
    # scale's REFERENCE_LIST keeps an entry for an object that is gone.
    with h5py.File(path("h5py_deleted.nc"), "w") as f:
        x = f.create_dataset("x", data=np.arange(3.0))
        x.make_scale("x")
        for name in ("a", "b"):
            d = f.create_dataset(name, data=np.arange(3, dtype="i4") + 10)
            d.dims[0].attach_scale(x)
        del f["a"]


def main():
    try:
        import numpy as np
    except ImportError as e:
        for w in ("netCDF4-python", "xarray", "h5netcdf", "h5py"):
            skip(w, e)
        return
    netcdf4_files(np)
    xarray_files(np)
    h5netcdf_files(np)
    h5py_files(np)


main()
