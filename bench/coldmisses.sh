#!/usr/bin/env bash
# Cache misses of one cold final round of close_support_ticket, generated
# against hand-written, by package: what BenchmarkRoundInProcess/final-cold
# (examples/server) pays, and over HTTP BenchmarkRound, when a round's code
# and data are not in the CPU caches. Counted by valgrind's cachegrind with
# a simulated 2 MiB last-level cache (a core's L2 here; the transport
# between two rounds evicts it), so the counts do not move with the load of
# the machine. Each variant runs twice (N1 and N2 rounds, the same setup);
# bench/cgdiff divides the difference.
#
#   bash bench/coldmisses.sh [STORE [N1 N2]]     (TOP=K lists K functions; default 40)
#
# STORE is "store" (default: generated-memory-store against
# baseline-handwritten-gosdk-store) or "no-store" (generated-no-store
# against baseline-handwritten-gosdk). Run from the repository root. Needs
# valgrind (Debian: apt-get install valgrind); about five minutes.
set -euo pipefail
mode=${1:-store} n1=${2:-200} n2=${3:-1200}
case $mode in
store) a=generated-memory-store b=baseline-handwritten-gosdk-store ;;
no-store) a=generated-no-store b=baseline-handwritten-gosdk ;;
*) echo "usage: bash bench/coldmisses.sh [store|no-store [N1 N2]]" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/server.test" ./examples/server
count() { # variant rounds
  # Go's preemption signals trip valgrind; one P keeps the count steady.
  (cd examples/server && GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=yes \
    --I1=32768,8,64 --D1=49152,12,64 --LL=2097152,16,64 --cachegrind-out-file="$dir/$1-$2.out" \
    "$dir/server.test" -test.run='^$' -test.bench="BenchmarkRoundInProcess/final-cold/$1\$" \
    -test.benchtime="$2"x -test.count=1 >"$dir/$1-$2.log" 2>&1) || { cat "$dir/$1-$2.log" >&2; exit 1; }
}
# Two at a time; a failed run (a b.Fatal, valgrind refusing) stops the
# script before cgdiff reads its output.
pair() {
  count "$1" "$n1" & local p1=$!
  count "$1" "$n2" & local p2=$!
  wait "$p1" && wait "$p2"
}
pair "$a"
pair "$b"
echo "A = $a, B = $b (cold final rounds $n1 and $n2)"
(cd bench && go run ./cgdiff -n1 "$n1" -n2 "$n2" -top "${TOP:-40}" -exclude 'evictCaches' \
  "$dir/$a-$n1.out" "$dir/$a-$n2.out" "$dir/$b-$n1.out" "$dir/$b-$n2.out")
