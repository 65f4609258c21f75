// Alibaba PAI 2020 tables (README.md "pai2020"): pai_task_table gives each job's GPU tasks,
// pai_sensor_table (optional) their measured utilisation and GPU memory, pai_job_table the job's
// submit time and status. The tables are joined in memory on job_name: one small record per job
// of the task table (~1.3M rows in the full trace: a few hundred MB), then the jobs are sorted by
// submit time in memory (at most kMaxBufferedJobs).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"
#include "traces/formats/public/loaders.h"
#include "traces/formats/public/public_trace_source.h"

namespace gpumux::public_traces {

namespace {

// Column positions (the CSVs have no header row; see the repository's *.header files).
namespace job_col {
constexpr std::size_t kName = 0, kUser = 2, kStatus = 3, kStart = 4, kCount = 6;
}
namespace task_col {
constexpr std::size_t kJob = 0, kTask = 1, kInstances = 2, kStart = 4, kEnd = 5, kPlanCpu = 6,
                      kPlanGpu = 8, kCount = 10;
}
namespace sensor_col {
constexpr std::size_t kJob = 0, kTask = 1, kGpuUtil = 7, kMaxGpuMem = 11, kCount = 16;
}

constexpr double kMiBPerGiB = 1024.0;

struct Task {
  std::string name;
  double gpus_per_instance = 0;  // ceil(plan_gpu / 100): GPUs each instance holds
};

struct Job {
  std::vector<Task> gpu_tasks;
  std::int64_t gpus = 0;
  bool whole_gpus = false;  // some GPU task holds whole GPUs
  double max_share = 0;     // largest fractional share among GPU tasks
  double start = std::numeric_limits<double>::infinity();
  double end = -std::numeric_limits<double>::infinity();
  bool task_not_run = false;       // a GPU task without start or end time
  bool task_no_instances = false;  // a GPU task without instances
  double util_sum = 0;             // sum over sensor rows of per-GPU utilisation (fraction)
  std::uint64_t util_rows = 0;
  double max_mem_gib = -1;  // per GPU; < 0 when no sensor row gave it
  double gpu_task_cpus = 0;  // cores of the GPU tasks: sum of inst_num x plan_cpu / 100
  // The CPU tasks (plan_gpu 0, plan_cpu > 0): a job without GPU tasks is made of them.
  double cpu_task_cpus = 0;
  bool has_cpu_task = false;
  double cpu_start = std::numeric_limits<double>::infinity();
  double cpu_end = -std::numeric_limits<double>::infinity();
  bool cpu_task_not_run = false;
  bool cpu_task_no_instances = false;
};

std::string table_path(const std::string& folder, const std::string& table, bool required) {
  namespace fs = std::filesystem;
  const fs::path plain = fs::path(folder) / (table + ".csv");
  const fs::path gzipped = fs::path(folder) / (table + ".csv.gz");
  const bool has_plain = fs::exists(plain);
  const bool has_gzipped = fs::exists(gzipped);
  // Both: which one holds the intended rows is not ours to guess (one may be a stale copy).
  if (has_plain && has_gzipped) {
    throw InputError(folder, table,
                     "the folder holds both " + table + ".csv and " + table +
                         ".csv.gz: keep one of them");
  }
  if (has_plain) return plain.string();
  if (has_gzipped) return gzipped.string();
  if (required) {
    throw InputError(folder, "",
                     "expected a folder holding " + table + ".csv (or .csv.gz): not found");
  }
  return "";
}

// Reads the table's rows; a first row starting with "job_name" is a header row added by hand
// (the published CSVs have none) and is passed over.
template <typename F>
void for_each_row(CsvReader& rows, std::size_t width, F&& f) {
  std::vector<std::string> cells;
  bool first = true;
  while (rows.next(cells)) {
    if (first && !cells.empty() && cells[0] == "job_name") {
      first = false;
      continue;
    }
    first = false;
    const std::string where = rows.where();
    check_row_width(cells, width, where);
    f(cells, where);
  }
}

class Pai2020 final : public PublicTraceSource {
 public:
  Pai2020(const std::string& folder, const TraceDefaults& defaults, std::uint64_t seed)
      : PublicTraceSource(defaults, seed, kWholeFile, "start_time") {
    if (!std::filesystem::is_directory(folder)) {
      throw InputError(folder, "",
                       "the pai2020 format reads a folder holding pai_job_table.csv, "
                       "pai_task_table.csv and optionally pai_sensor_table.csv");
    }
    job_table_ = table_path(folder, "pai_job_table", true);
    task_table_ = table_path(folder, "pai_task_table", true);
    sensor_table_ = table_path(folder, "pai_sensor_table", false);
  }

 private:
  bool read_more() override {
    if (done_) return false;
    done_ = true;
    read_tasks();
    other_skipped_lines_ = task_skipped_lines_;
    if (!sensor_table_.empty()) read_sensors();
    read_jobs();
    jobs_ = {};
    stats_.skipped_lines = other_skipped_lines_ + job_skipped_lines_;
    return true;
  }

  void read_tasks() {
    CsvReader rows(task_table_);
    for_each_row(
        rows, task_col::kCount, [&](const std::vector<std::string>& c, const std::string& where) {
          if (c[task_col::kJob].empty()) throw InputError(where, "job_name", "must not be empty");
          Job& job = jobs_[c[task_col::kJob]];
          // plan_gpu is percent of one GPU; empty (NaN in the published tables) means no GPU.
          const double plan_gpu =
              c[task_col::kPlanGpu].empty()
                  ? 0.0
                  : parse_number_cell(c[task_col::kPlanGpu], where, "plan_gpu", 0, 1e8);
          const auto time = [&](std::size_t col, const char* name, double& out) {
            if (c[col].empty()) return false;
            out = parse_seconds_cell(c[col], where, name);
            return true;
          };
          double start = 0, end = 0;
          const bool has_start = time(task_col::kStart, "start_time", start);
          const bool has_end = time(task_col::kEnd, "end_time", end);
          double instances = 0;
          if (!c[task_col::kInstances].empty()) {
            instances = parse_number_cell(c[task_col::kInstances], where, "inst_num", 0, 1e6);
            if (instances != std::round(instances)) {
              throw InputError(where, "inst_num",
                               "expected a whole number, got '" + c[task_col::kInstances] + "'");
            }
          }
          // plan_cpu is percent of one core (600: 6 cores); empty means none, as plan_gpu.
          const double plan_cpu =
              c[task_col::kPlanCpu].empty()
                  ? 0.0
                  : parse_number_cell(c[task_col::kPlanCpu], where, "plan_cpu", 0, 1e8);
          if (plan_gpu <= 0) {
            if (plan_cpu <= 0) return;
            job.has_cpu_task = true;
            if (instances < 1) {
              job.cpu_task_no_instances = true;
            } else if (!has_start || !has_end) {
              job.cpu_task_not_run = true;
            } else {
              job.cpu_task_cpus += instances * plan_cpu / 100.0;
              job.cpu_start = std::min(job.cpu_start, start);
              job.cpu_end = std::max(job.cpu_end, end);
            }
            return;
          }
          if (instances < 1) {
            job.task_no_instances = true;
            return;
          }
          if (!has_start || !has_end) {
            job.task_not_run = true;
            return;
          }
          const GpuRequest r = gpu_request(plan_gpu / 100.0, static_cast<std::int64_t>(instances),
                                           where, "plan_gpu");
          job.gpus += r.gpus;
          if (job.gpus > 1'000'000)
            throw InputError(where, "plan_gpu", "the job's gang exceeds 10^6 GPUs");
          if (r.fractional) {
            job.max_share = std::max(job.max_share, r.sm_share);
          } else {
            job.whole_gpus = true;
          }
          job.start = std::min(job.start, start);
          job.end = std::max(job.end, end);
          job.gpu_task_cpus += instances * plan_cpu / 100.0;
          job.gpu_tasks.push_back(Task{c[task_col::kTask], std::ceil(plan_gpu / 100.0 - 1e-9)});
        });
    task_skipped_lines_ = rows.skipped_lines();
  }

  void read_sensors() {
    CsvReader rows(sensor_table_);
    for_each_row(
        rows, sensor_col::kCount, [&](const std::vector<std::string>& c, const std::string& where) {
          const auto it = jobs_.find(c[sensor_col::kJob]);
          const std::string& util_cell = c[sensor_col::kGpuUtil];
          const std::string& mem_cell = c[sensor_col::kMaxGpuMem];
          const double util =
              util_cell.empty() ? -1 : parse_number_cell(util_cell, where, "gpu_wrk_util", 0, 1e8);
          const double mem =
              mem_cell.empty() ? -1 : parse_number_cell(mem_cell, where, "max_gpu_wrk_mem", 0, 1e6);
          if (it == jobs_.end()) return;
          Job& job = it->second;
          const auto task =
              std::find_if(job.gpu_tasks.begin(), job.gpu_tasks.end(),
                           [&](const Task& t) { return t.name == c[sensor_col::kTask]; });
          if (task == job.gpu_tasks.end()) return;  // a CPU task's instance
          // Both are per instance: gpu_wrk_util in percent of one GPU (200 = two GPUs busy),
          // max_gpu_wrk_mem in GB over the instance's GPUs. Spread evenly over its GPUs.
          if (util >= 0) {
            job.util_sum += util / 100.0 / task->gpus_per_instance;
            ++job.util_rows;
          }
          if (mem >= 0) job.max_mem_gib = std::max(job.max_mem_gib, mem / task->gpus_per_instance);
        });
    other_skipped_lines_ += rows.skipped_lines();
  }

  void read_jobs() {
    CsvReader rows(job_table_);
    const std::uint32_t file = add_file(job_table_);
    for_each_row(rows, job_col::kCount,
                 [&](const std::vector<std::string>& c, const std::string& where) {
                   JobSpec spec;
                   JobFields fields(spec);
                   fields.id(c[job_col::kName], where);
                   const bool has_submit = !c[job_col::kStart].empty();
                   const double submit =
                       has_submit ? parse_seconds_cell(c[job_col::kStart], where, "start_time") : 0;
                   const std::string& status = c[job_col::kStatus];
                   if (status == "Waiting") return skip("status_waiting");
                   if (status == "Running") return skip("status_running");
                   if (status != "Terminated" && status != "Failed") return skip("status_other");
                   const auto it = jobs_.find(c[job_col::kName]);
                   if (it == jobs_.end()) return skip("no_task_rows");
                   const Job& job = it->second;
                   // A job without GPU tasks is its CPU tasks: a CPU-only job (gpus 0).
                   const bool cpu_only = job.gpu_tasks.empty() && !job.task_no_instances &&
                                         !job.task_not_run;
                   if (cpu_only && !job.has_cpu_task) return skip("no_gpu_or_cpu_task");
                   if (job.task_no_instances || (cpu_only && job.cpu_task_no_instances)) {
                     return skip("task_without_instances");
                   }
                   if (job.task_not_run || (cpu_only && job.cpu_task_not_run)) {
                     return skip("task_not_run");
                   }
                   if (!has_submit) return skip("no_submit_time");
                   const double start = cpu_only ? job.cpu_start : job.start;
                   const double end = cpu_only ? job.cpu_end : job.end;
                   if (end < start) return skip("end_before_start");

                   if (cpu_only) {
                     fields.no_gpus();
                   } else {
                     GpuRequest r;
                     r.gpus = static_cast<int>(job.gpus);
                     r.fractional = !job.whole_gpus;
                     r.sm_share = r.fractional ? job.max_share : 1.0;
                     fields.gpus(r);
                   }
                   fields.cpus(cpu_only ? job.cpu_task_cpus : job.gpu_task_cpus);
                   fields.submit(Time::from_seconds(submit));
                   fields.runtime(Time::from_seconds(end) - Time::from_seconds(start));
                   if (job.util_rows > 0) {
                     const double util = job.util_sum / static_cast<double>(job.util_rows);
                     // A measured 0 says nothing about the duty cycle when busy: leave it to
                     // defaults.
                     if (util > 0) fields.sm_util(std::clamp(util, 1e-6, 1.0));
                   }
                   if (job.max_mem_gib >= 0) {
                     fields.memory(MemoryMiB(std::llround(job.max_mem_gib * kMiBPerGiB)));
                   }
                   fields.tenant(c[job_col::kUser]);
                   add(std::move(spec), fields.present(), file, rows.line());
                 });
    job_skipped_lines_ = rows.skipped_lines();
  }

  std::string job_table_, task_table_, sensor_table_;
  std::unordered_map<std::string, Job> jobs_;
  bool done_ = false;
  // Blank and comment lines of each table.
  std::uint64_t task_skipped_lines_ = 0, other_skipped_lines_ = 0, job_skipped_lines_ = 0;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_pai2020(const std::string& folder,
                                                const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<Pai2020>(folder, defaults, seed);
}

}  // namespace gpumux::public_traces
