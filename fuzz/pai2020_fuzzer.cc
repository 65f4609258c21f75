// The PAI 2020 loader, whose input is a folder of tables: the fuzz input holds the job table, the
// task table and optionally the sensor table, separated by "=====" lines (fuzz_support.h).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "traces/formats/trace_opening.h"
#include "sim/base/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  const auto parts =
      fuzz::split_files(std::string_view(reinterpret_cast<const char*>(data), size), 3);
  std::filesystem::create_directories(fuzz::scratch_path("pai2020"));
  fuzz::write_scratch_file("pai2020/pai_job_table.csv", parts[0]);
  fuzz::write_scratch_file("pai2020/pai_task_table.csv", parts[1]);
  const std::string sensor = fuzz::scratch_path("pai2020/pai_sensor_table.csv");
  if (parts[2].empty()) {
    std::filesystem::remove(sensor);
  } else {
    fuzz::write_scratch_file("pai2020/pai_sensor_table.csv", parts[2]);
  }
  try {
    const auto source =
        open_scenario_trace(fuzz::scratch_path("pai2020"), "pai2020", TraceDefaults(), 1);
    JobSpec job;
    while (source->next(job)) {
    }
  } catch (const InputError&) {
    // the expected answer to bad input
  } catch (const std::exception& e) {
    fuzz::finding(std::string("not an InputError: ") + e.what());
  }
  return 0;
}
