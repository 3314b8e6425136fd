#!/bin/sh
# check_layers.sh -- each folder of lib/ may include only the headers of
# the layers lib/README.md allows it; the build's per-folder include paths
# are what enforce that, and this test proves they do: for every folder
# and every internal header, an include compiles exactly when the rule
# allows it.  <hdf5.h> is reachable from store/hdf5 only.  And the map,
# doc/architecture.md, names every source file of lib/.
srcdir=${srcdir:-.}
top=$(cd "$srcdir" && pwd)
flags=$(${MAKE:-make} -s layer-flags 2>/dev/null)
if [ -z "$flags" ]; then
    echo "FAIL: make layer-flags printed nothing"
    exit 1
fi
CC=$(echo "$flags" | sed -n 's/^CC //p')
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# folder: the headers it may include (the rule of lib/README.md)
allowed() {
    case $1 in
    common)   echo "common.h" ;;
    model)    echo "common.h model.h" ;;
    engine)   echo "common.h engine.h" ;;
    io)       echo "common.h io.h" ;;
    store)    echo "common.h model.h engine.h io.h store.h" ;;
    classic)  echo "common.h model.h engine.h io.h store.h classic.h journal.h" ;;
    chunk)    echo "common.h engine.h chunk.h" ;;
    h5read)   echo "common.h h5read.h" ;;
    nc4)      echo "common.h model.h engine.h io.h store.h chunk.h h5read.h nc4.h" ;;
    hdf5)     echo "common.h model.h engine.h io.h store.h chunk.h h5read.h nc4.h hdf5_store.h hdf5.h" ;;
    api)      echo "common.h model.h engine.h io.h store.h chunk.h api.h" ;;
    mpi)      echo "common.h model.h engine.h io.h store.h classic.h journal.h mpi_store.h mpi.h" ;;
    par)      echo "common.h model.h engine.h io.h store.h classic.h journal.h chunk.h api.h mpi_store.h par.h mpi.h" ;;
    compat|v3|dropinv3|dropin|programs) echo "" ;;
    esac
}
headers="common.h model.h engine.h io.h store.h classic.h journal.h chunk.h h5read.h nc4.h hdf5_store.h api.h"
# the parallel folders' headers and <mpi.h>, where the build has MPI
# (their folders print no flags without it)
mpi_built=no
echo "$flags" | grep -q '^mpi .' && mpi_built=yes
[ $mpi_built = yes ] && headers="$headers mpi_store.h par.h"

# Without any flag, is <hdf5.h> on the compiler's own path?  Then no
# include path can keep it out, and its row is not checked.
echo '#include <hdf5.h>' > "$tmp/h.c"
hdf5_default=no
$CC -fsyntax-only -c "$tmp/h.c" -o /dev/null 2>/dev/null && hdf5_default=yes

echo '#include <mpi.h>' > "$tmp/m.c"
mpi_default=no
$CC -fsyntax-only -c "$tmp/m.c" -o /dev/null 2>/dev/null && mpi_default=yes
sys=hdf5.h
[ $mpi_built = yes ] && [ $mpi_default = no ] && sys="$sys mpi.h"

folders="common model engine io store classic chunk h5read nc4 hdf5 api compat v3 dropinv3 dropin programs"
[ $mpi_built = yes ] && folders="$folders mpi par"
for folder in $folders; do
    f=$(echo "$flags" | sed -n "s/^$folder //p")
    ok=$(allowed $folder)
    for h in $headers $sys; do
        if [ "$h" = hdf5.h ] || [ "$h" = mpi.h ]; then
            [ "$h" = hdf5.h ] && [ $hdf5_default = yes ] && continue
            echo "#include <$h>" > "$tmp/t.c"
        else
            echo "#include \"$h\"" > "$tmp/t.c"
        fi
        case " $ok " in *" $h "*) want=yes ;; *) want=no ;; esac
        if eval "$CC $f -fsyntax-only -c \"$tmp/t.c\" -o /dev/null" \
               >"$tmp/log" 2>&1; then got=yes; else got=no; fi
        if [ $want != $got ]; then
            if [ $want = yes ]; then
                echo "FAIL: $folder may include $h but it does not compile:"
                sed 's/^/    /' "$tmp/log" | head -5
            else
                echo "FAIL: $folder must not reach $h, but its flags find it"
            fi
            fail=1
        fi
    done
done

# Relative includes would go around the include paths.
bad=$(grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*/' "$top/lib" \
        --include='*.c' --include='*.h' | grep -vE '"ncslab/netcdf(_mem|_filter|_meta|_par)?\.h"')
if [ -n "$bad" ]; then
    echo "FAIL: includes by relative path in lib/:"
    echo "$bad"
    fail=1
fi
# doc/architecture.md is the map of lib/: it names every source file.
for f in $(cd "$top" && find lib -name '*.[ch]' | sort); do
    if ! grep -q "$(basename "$f")" "$top/doc/architecture.md"; then
        echo "FAIL: doc/architecture.md does not name $f"
        fail=1
    fi
done

[ $fail = 0 ] && echo "PASS: every folder of lib/ reaches exactly the headers lib/README.md allows"
exit $fail
