#!/usr/bin/env bash
# MPI = threads = shards: the same sweeps run by `mpirun -np 3` (a coordinator and two workers,
# oversubscribed on a small machine), by one process on two threads, and as three array shards
# then `gpumux merge`, give byte-identical sweep.csv and sweep.json. One of the sweeps has
# failing runs: under MPI too they are recorded and the sweep goes on (exit 3).
# Usage: mpi_sweep_test.sh GPUMUX MPIEXEC   (from the source root; a few seconds)
set -euo pipefail
gpumux=$1
mpiexec=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/gpumux_mpi_sweep.XXXXXX")
trap 'rm -rf "$out"' EXIT

check_sweep() {  # NAME SWEEP EXPECTED_EXIT
  local name=$1 sweep=$2 want=$3 code
  code=0; "$mpiexec" -np 3 --oversubscribe "$gpumux" sweep "$sweep" --out "$out/$name-mpi" \
    > "$out/$name-mpi.txt" 2> "$out/$name-mpi.err" || code=$?
  if [ "$code" != "$want" ]; then
    echo "FAIL: mpirun sweep of $sweep exited $code, expected $want"; cat "$out/$name-mpi.err"
    exit 1
  fi
  grep -q "on 2 MPI worker ranks" "$out/$name-mpi.err" || {
    echo "FAIL: the sweep did not run on MPI workers"; cat "$out/$name-mpi.err"; exit 1; }
  code=0; "$gpumux" sweep "$sweep" --out "$out/$name-threads" -j 2 \
    > "$out/$name-threads.txt" 2> /dev/null || code=$?
  [ "$code" = "$want" ] || { echo "FAIL: threads sweep exited $code"; exit 1; }
  for i in 0 1 2; do
    "$gpumux" sweep "$sweep" --out "$out/$name-shards" --shard "$i/3" > /dev/null 2>&1 || true
  done
  code=0; "$gpumux" merge "$out/$name-shards" > "$out/$name-shards.txt" 2> /dev/null || code=$?
  [ "$code" = "$want" ] || { echo "FAIL: merge of the shards exited $code"; exit 1; }
  for f in sweep.csv sweep.json; do
    cmp "$out/$name-mpi/$f" "$out/$name-threads/$f" || { echo "FAIL: $name $f: MPI != threads"; exit 1; }
    cmp "$out/$name-mpi/$f" "$out/$name-shards/$f" || { echo "FAIL: $name $f: MPI != shards"; exit 1; }
  done
  cmp "$out/$name-mpi.txt" "$out/$name-threads.txt" || { echo "FAIL: $name printed tables differ"; exit 1; }
  echo "ok: $name: MPI = threads = shards ($(($(wc -l < "$out/$name-mpi/sweep.csv") - 1)) rows)"
}

check_sweep tiny scenarios/sweeps/queues_tiny.json 0
check_sweep failures tests/sweep/data/with_failures.json 3
grep -q '"failed": 4' "$out/failures-mpi/sweep.json" || { echo "FAIL: 4 failed runs expected"; exit 1; }
