#!/bin/sh
# tests/tools/check_doclinks.sh -- every file the documents point to is in the
# source tree and ships in the release tarball, so that a reader of an
# unpacked release never follows a reference to nothing.
#
# Documents: README, HACKING.md and doc/*.md.  What points to a file:
#   - a Markdown link or image, [text](target), whose target is neither a
#     URL nor an anchor: relative to the document's folder;
#   - a path written out, from the top of the source tree, whose first
#     folder is one of the tree's (doc/, lib/, tests/, ...): a name with an
#     extension must be a file of the tree; one without (scripts/test, but
#     also tests/v2/diff_v2seq, a program the build makes) counts when the
#     tree has it;
#   - a bare NAME.md found in the document's folder or in doc/ (one in a
#     folder named just before, "README.md there", is left alone);
#   - an upper-case top-level file named in the text (LICENSE).
# The shipped files are the build's list (tests/tools/distfiles.txt, made from
# automake's DISTFILES); a listed folder ships all it holds.
#
# Run by `make check` from the top build directory; automake's test harness
# exports srcdir.
set -u

srcdir=${srcdir:-.}
list=${DISTFILES_LIST:-tests/tools/distfiles.txt}
if [ ! -f "$list" ]; then
    echo "FAIL: $list not found (made by make check)"
    exit 1
fi

tmp=${TMPDIR:-/tmp}/check_doclinks.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

# The shipped list, without ./ and trailing slashes.
sed -e 's|^\./||' -e 's|/*$||' "$list" | sort -u >"$tmp/dist"

# The tree's folders a path written out starts with (not _build/, which
# the documents name for what the build makes; nctest/ is netCDF's own
# test folder, which doc/timeit.md names).
tops='doc|include|lib|nctest|programs|scripts|tests|tools|\.ci'

# What a document names that is not a file of this tree, each with why.
#   doc/timeit.md nctest/timeit.c: netCDF's 1992 benchmark, the origin of
#     programs/timeit/
exempt='doc/timeit.md nctest/timeit.c'

# Removes ./ and folder/../ from a relative path.
normal() {
    printf '%s\n' "$1" | sed -e 's|^\./||' -e 's|/\./|/|g' -e ':a' \
        -e 's|[^/][^/]*/\.\./||' -e 'ta'
}

# shipped PATH: 0 when PATH or a folder holding it is in the list; for a
# folder, when something in it is.
shipped() {
    p=$1
    if [ -d "$srcdir/$p" ] && grep -q "^$p/" "$tmp/dist"; then
        return 0
    fi
    while :; do
        grep -qxF "$p" "$tmp/dist" && return 0
        case $p in */*) p=${p%/*} ;; *) return 1 ;; esac
    done
}

status=0
nrefs=0
# check DOC TARGET: TARGET (relative to the top) exists and ships.
check() {
    nrefs=$((nrefs + 1))
    if printf '%s\n' "$exempt" | grep -qxF "$1 $2"; then
        return
    elif [ ! -e "$srcdir/$2" ]; then
        echo "FAIL: $1 points to $2, which is not in the source tree"
        status=1
    elif ! shipped "$2"; then
        echo "FAIL: $1 points to $2, which is not in the release tarball (EXTRA_DIST)"
        status=1
    fi
}

ndocs=0
for doc in README HACKING.md "$srcdir"/doc/*.md; do
    doc=${doc#"$srcdir"/}
    [ -f "$srcdir/$doc" ] || continue
    ndocs=$((ndocs + 1))
    dir=$(dirname "$doc")
    src=$srcdir/$doc
    : >"$tmp/refs"
    # Markdown links and images
    grep -oE '\]\([^) ]+\)' "$src" | sed -e 's/^](//' -e 's/)$//' -e 's/#.*//' |
        grep -vE '^([A-Za-z][A-Za-z0-9+.-]*:|$)' | while read -r t; do
        normal "$dir/$t"
    done >>"$tmp/refs"
    # paths written out from the top of the tree
    grep -oE "(^|[^A-Za-z0-9_./<-])($tops)/[A-Za-z0-9_./-]*[A-Za-z0-9_]" "$src" |
        sed -E "s/^[^A-Za-z0-9_.]//" | while read -r t; do
        t=$(normal "$t")
        case ${t##*/} in
        *.*) printf '%s\n' "$t" ;;
        *) [ -e "$srcdir/$t" ] && printf '%s\n' "$t" ;;
        esac
    done >>"$tmp/refs"
    # bare document names
    grep -oE '(^|[^A-Za-z0-9_./-])[A-Za-z0-9_-]+\.md([^A-Za-z0-9_]|$)' "$src" |
        sed -E -e 's/^[^A-Za-z0-9_-]//' -e 's/[^A-Za-z0-9_]$//' | while read -r t; do
        if [ -e "$srcdir/$(normal "$dir/$t")" ]; then
            normal "$dir/$t"
        elif [ -e "$srcdir/doc/$t" ]; then
            printf 'doc/%s\n' "$t"
        fi
    done >>"$tmp/refs"
    # upper-case top-level files
    grep -oE '(^|[^A-Za-z0-9_./-])[A-Z][A-Z_]{3,}(\.md)?([^A-Za-z0-9_./-]|$)' "$src" |
        sed -E -e 's/^[^A-Z]//' -e 's/[^A-Za-z0-9_]$//' | while read -r t; do
        [ -f "$srcdir/$t" ] && printf '%s\n' "$t"
    done >>"$tmp/refs"
    for t in $(sort -u "$tmp/refs"); do
        check "$doc" "$t"
    done
done

if [ "$ndocs" -lt 3 ] || [ "$nrefs" -eq 0 ]; then
    echo "FAIL: $ndocs documents, $nrefs references found (is srcdir=$srcdir right?)"
    exit 1
fi
[ $status -eq 0 ] && echo "PASS: $nrefs references in $ndocs documents, all in the tree and the tarball"
exit $status
