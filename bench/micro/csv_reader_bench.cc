// The one CSV reader (traces/io/csv_reader.h over traces/io/text_input.h): rows per second on a
// generated file in the pai-sim job CSV's shape (14 columns, ~53 bytes a row), plain and gzipped.
// docs/performance.md "The one CSV reader" compares it with the two readers it replaced.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "traces/io/csv_reader.h"
#include "traces/io/text_input.h"

namespace gpumux {
namespace {

constexpr int kRows = 200'000;

// The file, written once per process under the temporary directory; "" for the gzip copy when
// it cannot be made (no gzip command, or no zlib in this build).
struct BenchFiles {
  std::string plain, gzip;
  BenchFiles() {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("gpumux_csv_reader_bench_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    plain = (dir / "jobs.csv").string();
    std::mt19937_64 rng(1);
    std::ofstream out(plain, std::ios::binary);
    out << "job_id,user,group,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,wait_time,"
           "user_dur,user_gpu_dur,group_dur,group_gpu_dur\n";
    for (int i = 0; i < kRows; ++i) {
      out << rng() % 1'000'000 << ",u" << rng() % 300 << ",g" << rng() % 20 << ",V100,1,"
          << i / 2 << ".5," << rng() % 100'000 << ".25," << 1 + rng() % 16 << ","
          << (rng() % 8) * 0.5 << ",0,1,1,1,1\n";
    }
    out.close();
    const std::string gz = plain + ".gz";
    if (gzip_supported() && std::system(("gzip -c '" + plain + "' > '" + gz + "'").c_str()) == 0) {
      gzip = gz;
    }
  }
  ~BenchFiles() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(plain).parent_path(), ec);
  }
};

const BenchFiles& files() {
  static const BenchFiles f;
  return f;
}

void read_all(benchmark::State& state, const std::string& path) {
  if (path.empty()) {
    state.SkipWithError("no gzip command or no zlib in this build");
    return;
  }
  std::vector<std::string> fields;
  for (auto _ : state) {
    CsvReader reader(path);
    std::size_t cells = 0;
    while (reader.next(fields)) cells += fields.size();
    benchmark::DoNotOptimize(cells);
  }
  state.SetItemsProcessed(state.iterations() * (kRows + 1));  // rows
}

void BM_CsvReaderPlain(benchmark::State& state) { read_all(state, files().plain); }
void BM_CsvReaderGzip(benchmark::State& state) { read_all(state, files().gzip); }

BENCHMARK(BM_CsvReaderPlain)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CsvReaderGzip)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpumux
