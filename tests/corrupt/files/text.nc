this is not a netCDF file
