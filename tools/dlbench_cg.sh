#!/bin/bash
# tools/dlbench_cg.sh DLBENCH LIB... -- instructions per call of each of
# dlbench's operations in each library: callgrind's count for 2N calls
# minus that for N, divided by N (the file's creation and the first call
# cancel out).
bench=$1
shift
ns=(20000 20000 4 20000 20000 20000 20 200 4)
names=("put1" "put 1x1x1x40" "put 10x20x30x40" "get1" "get 1x1x1x40" "get 10x1x1x1"
       "get stride 2" "get transposed" "get 10x20x30x40")
printf '%-18s' op; for l in "$@"; do printf ' %14s' "lib$((++k))"; done; echo
for op in ${DLBENCH_OPS:-0 1 2 3 4 5 6 7 8}; do
  printf '%-18s' "${names[$op]}"
  for lib in "$@"; do
    n=${ns[$op]}
    a=$(valgrind --tool=callgrind --toggle-collect=run_op --callgrind-out-file=/dev/null "$bench" $lib $op $n 2>&1 | sed -n 's/.*Collected : //p')
    b=$(valgrind --tool=callgrind --toggle-collect=run_op --callgrind-out-file=/dev/null "$bench" $lib $op $((2*n)) 2>&1 | sed -n 's/.*Collected : //p')
    printf ' %14.1f' $(echo "($b - $a) / $n" | bc -l)
  done
  echo
done
