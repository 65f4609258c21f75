#!/usr/bin/env python3
"""Writes mixed_20.csv: 20 one-GPU jobs of six kernel loops (kernel length, SM share, duty
cycle) arriving every 3-4.5 s with 3-6 s of work, for `gpumux-probe replay`. Deterministic
(seed 21); run it from this folder."""
import random

random.seed(21)
# (kernel_us, sm_share, sm_util): short and long kernels, narrow and full-GPU, busy and gappy.
TYPES = [(200, 0.25, 0.5), (1000, 0.5, 0.8), (2000, 1.0, 1.0),
         (200, 1.0, 0.3), (1000, 0.125, 1.0), (2000, 0.5, 0.6)]
rows, t = [], 0.0
for i in range(20):
    kernel_us, share, util = TYPES[i % 6] if i < 6 else random.choice(TYPES)
    runtime = random.choice([3, 4, 5, 6])
    memory = random.choice([2048, 4096, 8192])
    rows.append(f"j{i + 1:02d},{t:.1f},1,{runtime},{util},{share},{memory},{kernel_us}")
    t += random.choice([3, 3.5, 4, 4.5])
with open("mixed_20.csv", "w") as out:
    out.write("id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kernel_us\n")
    out.write("\n".join(rows) + "\n")
