#!/usr/bin/env bash
# Instructions per op of a Go benchmark, counted by valgrind's callgrind:
# unlike ns/op, the count does not move with the load of other processes
# on the machine, so a ratio of two counts taken on a shared machine is
# steady. It runs the benchmark twice (N1 and N2 iterations, -benchtime
# Nx) and divides the difference, so setup outside the loop cancels out.
#
#   bash bench/instructions.sh PACKAGE BENCH [N1 N2]
#   bash bench/instructions.sh ./mrtr/seal 'SealOpenVsFloor/token'
#
# Needs valgrind (Debian: apt-get install valgrind). Go's asynchronous
# preemption signals trip callgrind, so they are turned off, and the
# benchmark runs on one P.
set -euo pipefail
pkg=$1 bench=$2 n1=${3:-2000} n2=${4:-12000}
bin=$(mktemp)
trap 'rm -f "$bin" "$bin".cg "$bin".err' EXIT
go test -c -o "$bin" "$pkg"
count() {
  GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$bin".cg \
    "$bin" -test.run='^$' -test.bench="$bench" -test.benchtime="$1"x -test.count=1 >/dev/null 2>"$bin".err
  grep -m1 'Collected' "$bin".err | awk '{print $4}' | tr -d ,
}
a=$(count "$n1")
b=$(count "$n2")
echo "$bench: $(((b - a) / (n2 - n1))) instructions/op"
