// Job-by-job parity with the rules of the Alibaba PAI 2020 simulator
// (cluster-trace-gpu-v2020/simulator), on a generated trace in its job CSV format.
//
// The reference below is written from those rules alone, independently of gpumux's engine,
// scheduler and readers:
// - reading: submit = round(submit_time) (ties to even), duration = trunc(duration), at least
//   1 s; GPU and CPU amounts in hundredths, round(100 x num_gpu) and round(100 x num_cpu) per
//   instance, times num_inst; an empty num_gpu / num_cpu is 0, an empty num_inst 1;
// - arrival rewrite -r R: rank all rows (CPU-only ones included) by (submit, job id), arrival =
//   (rank // R) x 60 s;
// - one node of N GPUs x 100 and round(C x N x 100) CPU hundredths;
// - at every instant, first the completions, then the arrivals, then: start the first job in
//   queue order that fits the free GPU and CPU amounts, again and again until none fits or both
//   free amounts are 0; queue order (submit, id), or (duration, id) for its SJF;
// - a job started at t ends at t + duration.
// gpumux runs the bundled peer scenario's keys on the same file; every job's submit, start and
// finish must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>

#include "tests/e2e/e2e_support.h"
#include "traces/io/csv_reader.h"

namespace gpumux {
namespace {

constexpr int kJobs = 3000;
constexpr int kPoolGpus = 48;
constexpr double kCpusPerGpu = 6.5;
constexpr int kBatch = 40;

// A pai-sim CSV from a fixed seed. Only std::mt19937_64's raw output is used (its sequence is
// fixed by the standard), so the file is the same everywhere.
std::string generate_trace() {
  std::mt19937_64 rng(20200);
  auto pick = [&](std::uint64_t n) { return rng() % n; };
  const char* gpus[] = {"1.0", "1.0", "0.5",   "0.25", "0.1", "2.0", "4.0", "8.0",
                        "0",   "",    "0.125", "0.75", "1.0", "0.5", "1.0", "0.05"};
  std::ostringstream out;
  out << "job_id,user,group,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,wait_time,"
         "user_dur,user_gpu_dur,group_dur,group_gpu_dur\n";
  // Ids in shuffled order: the reader must sort by submit time, the ranking by id.
  std::vector<int> ids(kJobs);
  for (int i = 0; i < kJobs; ++i) ids[i] = i + 1;
  for (int i = kJobs - 1; i > 0; --i) std::swap(ids[i], ids[pick(i + 1)]);
  for (int i = 0; i < kJobs; ++i) {
    // Submit times with many ties and some exact halves (rounded to even).
    const std::uint64_t tenths = pick(20000) / 5 * 5;
    std::ostringstream submit;
    submit << tenths / 10 << '.' << tenths % 10;
    // Durations: some 0 and sub-second (lifted to 1 s), most fractional, a few long.
    std::ostringstream duration;
    const std::uint64_t kind = pick(10);
    if (kind == 0) {
      duration << "0";
    } else if (kind == 1) {
      duration << "0." << pick(10);
    } else if (kind < 9) {
      duration << pick(3000) << '.' << pick(100);
    } else {
      duration << 3000 + pick(20000);
    }
    const std::string inst = pick(12) == 0 ? "2" : (pick(20) == 0 ? "" : "1");
    std::ostringstream cpu;
    cpu << pick(24) << '.' << pick(4) * 25;
    out << ids[i] << ",u" << pick(30) << ",g" << pick(5) << ",V100," << inst << ',' << submit.str()
        << ',' << duration.str() << ',' << (pick(30) == 0 ? "" : cpu.str()) << ',' << gpus[pick(16)]
        << ",0,1,1,1,1\n";
  }
  return out.str();
}

std::int64_t py_round(double x) { return static_cast<std::int64_t>(std::nearbyint(x)); }

struct RefJob {
  std::int64_t id = 0, submit = 0, duration = 0, gpu = 0, cpu = 0;
  std::int64_t start = -1, finish = -1;
};

std::vector<RefJob> read_reference(const std::string& path) {
  CsvReader reader(path);
  std::vector<std::string> row;
  reader.next(row);
  std::vector<RefJob> jobs;
  while (reader.next(row)) {
    RefJob j;
    j.id = std::stoll(row[0]);
    const std::int64_t inst = row[4].empty() ? 1 : py_round(std::stod(row[4]));
    j.submit = py_round(std::stod(row[5]));
    j.duration = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::stod(row[6])));
    j.cpu = inst * (row[7].empty() ? 0 : py_round(100 * std::stod(row[7])));
    j.gpu = inst * (row[8].empty() ? 0 : py_round(100 * std::stod(row[8])));
    jobs.push_back(j);
  }
  return jobs;
}

// The simulator's rules, by brute force: every instant, every queued job looked at.
void simulate_reference(std::vector<RefJob>& jobs, bool shortest) {
  std::sort(jobs.begin(), jobs.end(), [](const RefJob& a, const RefJob& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  for (std::size_t r = 0; r < jobs.size(); ++r) jobs[r].submit = (r / kBatch) * 60;
  std::int64_t free_gpu = 100 * kPoolGpus;
  std::int64_t free_cpu = py_round(100 * kCpusPerGpu * kPoolGpus);
  std::vector<RefJob*> queue, running;
  std::size_t next_arrival = 0;
  std::int64_t now = 0;
  while (next_arrival < jobs.size() || !queue.empty() || !running.empty()) {
    std::int64_t t = INT64_MAX;
    if (next_arrival < jobs.size()) t = jobs[next_arrival].submit;
    for (const RefJob* j : running) t = std::min(t, j->finish);
    now = t;
    for (std::size_t i = 0; i < running.size();) {
      if (running[i]->finish == now) {
        free_gpu += running[i]->gpu;
        free_cpu += running[i]->cpu;
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    bool arrived = false;
    while (next_arrival < jobs.size() && jobs[next_arrival].submit == now) {
      queue.push_back(&jobs[next_arrival++]);
      arrived = true;
    }
    // A job's place in the order never changes: sorting again is needed only after arrivals.
    if (arrived) {
      std::stable_sort(queue.begin(), queue.end(), [&](const RefJob* a, const RefJob* b) {
        if (shortest && a->duration != b->duration) return a->duration < b->duration;
        if (!shortest && a->submit != b->submit) return a->submit < b->submit;
        return a->id < b->id;
      });
    }
    for (std::size_t i = 0; i < queue.size();) {
      if (free_gpu <= 0 && free_cpu <= 0) break;
      RefJob* j = queue[i];
      if (j->gpu > free_gpu || j->cpu > free_cpu) {
        ++i;
        continue;
      }
      free_gpu -= j->gpu;
      free_cpu -= j->cpu;
      j->start = now;
      j->finish = now + j->duration;
      running.push_back(j);
      queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

struct GpumuxJob {
  double submit = 0, start = 0, finish = 0;
  std::string state;
};

std::map<std::int64_t, GpumuxJob> run_gpumux(const std::string& trace, const std::string& order,
                                             const testing::fs::path& dir) {
  const auto scenario = testing::source_dir() / "scenarios/peers/pai2020_sim.json";
  const auto r = testing::run_cli({"run", scenario.string(), "--out", (dir / order).string(),
                                   "--quiet", "--set", "trace.file=" + trace, "--set",
                                   "cluster.pool.gpus=" + std::to_string(kPoolGpus), "--set",
                                   "cluster.pool.cpus_per_gpu=6.5", "--set",
                                   "trace.arrival_batches.jobs=" + std::to_string(kBatch), "--set",
                                   "scheduler.order=" + order});
  EXPECT_EQ(r.code, 0) << r.err;
  CsvReader reader((dir / order / "jobs.csv").string());
  std::vector<std::string> row, header;
  reader.next(header);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  std::map<std::int64_t, GpumuxJob> out;
  while (reader.next(row)) {
    GpumuxJob j;
    j.state = row[col["state"]];
    j.submit = std::stod(row[col["submit_s"]]);
    if (j.state == "finished") {
      j.start = std::stod(row[col["start_s"]]);
      j.finish = std::stod(row[col["finish_s"]]);
    }
    out[std::stoll(row[col["id"]])] = j;
  }
  return out;
}

void expect_parity(bool shortest) {
  const auto dir = testing::temp_dir(shortest ? "pai_parity_sjf" : "pai_parity");
  const auto trace = dir / "pai_sim.csv";
  testing::write_file(trace, generate_trace());
  std::vector<RefJob> reference = read_reference(trace.string());
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(kJobs));
  simulate_reference(reference, shortest);
  const auto got = run_gpumux(trace.string(), shortest ? "shortest" : "arrival", dir);
  ASSERT_EQ(got.size(), reference.size());
  int cpu_only = 0, waited = 0, differ = 0;
  for (const RefJob& want : reference) {
    const GpumuxJob& have = got.at(want.id);
    ASSERT_EQ(have.state, "finished") << "job " << want.id;
    cpu_only += want.gpu == 0;
    waited += want.start > want.submit;
    if (have.submit != static_cast<double>(want.submit) ||
        have.start != static_cast<double>(want.start) ||
        have.finish != static_cast<double>(want.finish)) {
      if (++differ <= 10) {
        ADD_FAILURE() << "job " << want.id << ": gpumux (" << have.submit << ", " << have.start
                      << ", " << have.finish << "), reference (" << want.submit << ", "
                      << want.start << ", " << want.finish << ")";
      }
    }
  }
  EXPECT_EQ(differ, 0);
  // The trace exercises what it is meant to: CPU-only jobs, and a queue that builds up.
  EXPECT_GT(cpu_only, kJobs / 20);
  EXPECT_GT(waited, kJobs / 4);
  testing::fs::remove_all(dir);
}

// The configuration as shipped (6,500 pooled GPUs, its bundled sample trace) runs: every row
// of the sample is a job of jobs.csv, and each one finishes.
TEST(PaiSimParity, TheBundledConfigurationRunsAsShipped) {
  const auto dir = testing::temp_dir("pai_bundled");
  const auto scenario = testing::source_dir() / "scenarios/peers/pai2020_sim.json";
  const auto r = testing::run_cli({"run", scenario.string(), "--out", dir.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  CsvReader sample((testing::source_dir() / "scenarios/peers/pai2020_sim_sample.csv").string());
  std::vector<std::string> row;
  std::size_t sample_jobs = 0;
  while (sample.next(row)) ++sample_jobs;
  --sample_jobs;  // the header
  CsvReader jobs((dir / "jobs.csv").string());
  std::vector<std::string> header;
  ASSERT_TRUE(jobs.next(header));
  const auto state = std::find(header.begin(), header.end(), "state") - header.begin();
  ASSERT_LT(static_cast<std::size_t>(state), header.size());
  std::size_t finished = 0, rows = 0;
  while (jobs.next(row)) {
    ++rows;
    finished += row[static_cast<std::size_t>(state)] == "finished";
  }
  EXPECT_GT(sample_jobs, 0u);
  EXPECT_EQ(rows, sample_jobs);
  EXPECT_EQ(finished, sample_jobs);
  testing::fs::remove_all(dir);
}

TEST(PaiSimParity, ArrivalOrderMatchesTheReferenceJobByJob) { expect_parity(false); }

TEST(PaiSimParity, ShortestFirstMatchesTheReferenceJobByJob) { expect_parity(true); }

}  // namespace
}  // namespace gpumux
