// `gpumux plan --fleet --out DIR --report`: DIR/report.html, one self-contained page (inline CSS
// and SVG, as analysis/report/html_report.h) drawn from the fleet plan's own runs:
//   - GPUs per sharing model beside one endpoint per GPU and the memory-only packing (a bar
//     chart and a table with savings, verification and one GPU fewer);
//   - per answer, each GPU: its endpoints (MIG instance, MPS share), output tokens/s, how busy it
//     was (the GPU, its SMs and its memory bandwidth where its endpoints were simulated
//     together; else each endpoint's engine), and its memory: weights + runtime reserve, KV
//     cache claimed, and what no engine claims;
//   - per answer, TTFT and TPOT CDFs, one line per scenario endpoint (an endpoint's round-robin
//     replicas pooled, weighted by the requests each served), and each endpoint's numbers with
//     its headroom.
// Every number is the whole-fleet run's (the scenario --out writes to fleet/<model>/), first seed.
// Deterministic: the same result gives a byte-identical page.
#pragma once

#include <string>

#include "analysis/fleet/fleet_plan.h"

namespace gpumux {

std::string fleet_report_html(const FleetResult& r);

}  // namespace gpumux
