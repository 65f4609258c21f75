#!/usr/bin/env bash
# Writes a generated trace in the PAI 2020 simulator's job CSV format (format `pai-sim`) to
# stdout: ROWS rows, 30% CPU-only (num_gpu 0), GPU requests per instance from 0.1 to 8, some
# 2-instance gangs, num_cpu 1-16 cores per instance, lognormal durations (median ~5 min, a tail of
# hours), submit times over a week with ties, ids in shuffled order. The uniform numbers come
# from a Lehmer generator (minstd), exact in any awk's double arithmetic; the durations also go
# through the C library's exp, log and cos. The timing rows of docs/performance.md use seed 1.
# Usage: bench/pai/pai_sim_trace.sh ROWS [SEED] > trace.csv
set -euo pipefail
rows=${1:?usage: pai_sim_trace.sh ROWS [SEED]}
seed=${2:-1}
awk -v rows="$rows" -v seed="$seed" '
  function next_u() { state = (state * 48271) % 2147483647; return state / 2147483647 }
  function pick(n) { return int(next_u() * n) }
  BEGIN {
    state = (seed % 2147483646) + 1
    for (i = 0; i < 10; ++i) next_u()
    split("0.1 0.25 0.5 0.5 1 1 1 1 1 2 2 4 8", gpu, " ")
    ngpu = 13
    for (i = 1; i <= rows; ++i) id[i] = i
    for (i = rows; i > 1; --i) { j = pick(i) + 1; t = id[i]; id[i] = id[j]; id[j] = t }
    print "job_id,user,group,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,wait_time," \
          "user_dur,user_gpu_dur,group_dur,group_gpu_dur"
    for (i = 1; i <= rows; ++i) {
      submit = pick(604800 * 2) / 2
      # lognormal: exp(mu + sigma z), z by Box-Muller
      u1 = next_u(); u2 = next_u()
      z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
      duration = exp(5.7 + 1.6 * z)
      g = pick(10) < 3 ? "0" : gpu[pick(ngpu) + 1]
      inst = pick(20) == 0 ? 2 : 1
      cpu = (pick(16) + 1) / (pick(4) == 0 ? 2 : 1)
      printf "%d,u%d,g%d,V100,%d,%.1f,%.2f,%g,%s,0,1,1,1,1\n", id[i], pick(300), pick(20), inst,
             submit, duration, cpu, g
    }
  }'
