#include "traces/formats/registry.h"

#include "traces/formats/public/loaders.h"

namespace gpumux {

const Registry<TraceFormatInfo>& trace_formats() {
  static const Registry<TraceFormatInfo> table(
      "trace format",
      {
          {"csv", "gpumux's native CSV, one column per job field", open_native_csv, nullptr, 1},
          {"jsonl", "one JSON object per line, the native fields", open_native_jsonl, nullptr, 0},
          {"tiresias", "the Tiresias simulator's job CSV", open_tiresias_csv, nullptr, 1},
          {"pai2020", "Alibaba PAI 2020 job and task tables (a folder)", nullptr,
           public_traces::open_pai2020},
          {"pai-sim", "the job CSV of the PAI 2020 repository's simulator", nullptr,
           public_traces::open_pai_sim},
          {"dlrm2025", "Alibaba GPU 2025 disaggregated_DLRM_trace.csv", nullptr,
           public_traces::open_dlrm2025},
          {"philly", "Microsoft Philly 2017 cluster_job_log", nullptr, public_traces::open_philly},
          {"helios", "SenseTime Helios cluster_log.csv", nullptr, public_traces::open_helios},
          {"openb-pods", "Alibaba GPU 2023 openb_pod_list_*.csv with times", nullptr,
           public_traces::open_openb_pods},
      });
  return table;
}

}  // namespace gpumux
