#!/bin/sh
# tests/tools/man_check.sh -- the man pages cover the public headers and
# render cleanly.
#
#   - every function declared in include/ncslab.h is named in
#     doc/man/ncslab.3, and every function and variable declared in
#     include/ncslab/netcdf.h in doc/man/ncslab-v2.3 or ncslab-netcdf.3
#     (the names are taken
#     from the headers with comments and preprocessor lines removed, so a
#     function added to a header fails here until its page names it);
#   - every man page the build installs (the build's own list,
#     tests/tools/manpages.txt, made from dist_man1_MANS and dist_man3_MANS:
#     a program's page added in its .am fragment is checked without a
#     change here) renders with groff -man -ww without a single warning, and
#     passes mandoc -T lint at level warning when mandoc is installed.
# Exits 77 when neither groff nor mandoc is installed.
#
# Run by `make check` from the top build directory; automake's test harness
# exports srcdir.
set -u

srcdir=${srcdir:-.}
list=${MANPAGES_LIST:-tests/tools/manpages.txt}
fail=0

if [ ! -f "$list" ]; then
    echo "FAIL: $list not found (made by make check)"
    exit 1
fi

# The names a header declares with a parameter list: functions, and
# function types (ncs_get1_failure), and extern variables.
declared() {
    perl -0777 -ne '
        s{/\*.*?\*/}{}gs;            # comments
        s{^[ \t]*#.*?(?<!\\)$}{}gms;  # preprocessor lines
        my %seen;
        while (/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g) {
            next if $1 =~ /^(sizeof|__attribute__|void)$/;
            print "$1\n" unless $seen{$1}++;
        }
        {   # extern variables (ncerr, ncopts)
            while (/\bextern\s+[A-Za-z_ ]+?\b([A-Za-z_][A-Za-z0-9_]*)\s*;/g) {
                print "$1\n" unless $seen{$1}++;
            }
        }' "$1"
}

# check_page HEADER PAGES MIN: each declared name occurs as a word in one
# of PAGES (groff's escapes \- and \e removed first); at least MIN names
# found, so a broken extraction cannot pass by finding nothing.
check_page() {
    header=$srcdir/$1 text=
    for p in $2; do
        if [ ! -f "$srcdir/$p" ]; then
            echo "FAIL: $p missing"; fail=1; return
        fi
        text="$text
$(sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\f[BIRP]//g' "$srcdir/$p")"
    done
    names=$(declared "$header")
    n=$(printf '%s\n' $names | grep -c .)
    if [ "$n" -lt "$3" ]; then
        echo "FAIL: only $n declarations found in $1 (expected >= $3)"
        fail=1
    fi
    missing=0
    for f in $names; do
        if ! printf '%s\n' "$text" | grep -q "\\b$f\\b"; then
            echo "FAIL: $f (declared in $1) is not in $2"
            missing=$((missing + 1))
        fi
    done
    [ "$missing" -eq 0 ] || fail=1
    echo "$2: $n names of $1 checked, $missing missing"
}

check_page include/ncslab.h doc/man/ncslab.3 60
check_page include/ncslab/netcdf.h "doc/man/ncslab-v2.3 doc/man/ncslab-netcdf.3" 300

# Rendering.  groff prints every warning to stderr under -ww; -z drops the
# output.
have_groff=no have_mandoc=no
command -v groff >/dev/null 2>&1 && have_groff=yes
command -v mandoc >/dev/null 2>&1 && have_mandoc=yes
if [ $have_groff = no ] && [ $have_mandoc = no ]; then
    echo "SKIP: neither groff nor mandoc installed"
    [ $fail -eq 0 ] && exit 77
    exit 1
fi

pages=$(grep -c . "$list")
if [ "$pages" -lt 2 ]; then
    echo "FAIL: $list lists $pages pages"
    fail=1
fi
for p in $(cat "$list"); do
    f=$srcdir/$p
    [ -f "$f" ] || f=$p      # a page the build makes
    if [ ! -f "$f" ]; then
        echo "FAIL: $p not found"; fail=1; continue
    fi
    if [ $have_groff = yes ]; then
        warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$f" 2>&1)
        if [ -n "$warn" ]; then
            echo "FAIL: groff warns on $p:"; printf '%s\n' "$warn"; fail=1
        fi
    fi
    if [ $have_mandoc = yes ]; then
        warn=$(mandoc -T lint -W warning "$f" 2>&1)
        if [ -n "$warn" ]; then
            echo "FAIL: mandoc warns on $p:"; printf '%s\n' "$warn"; fail=1
        fi
    fi
    # A page whose NAME section is missing renders but is not found by
    # apropos/whatis.
    if ! grep -q '^\.SH NAME' "$f"; then
        echo "FAIL: $p has no NAME section"; fail=1
    fi
done
echo "$pages man pages rendered (groff: $have_groff, mandoc: $have_mandoc)"
exit $fail
