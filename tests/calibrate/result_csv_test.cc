#include "calibrate/probe/result_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibrate/probe/device_naming.h"
#include "calibrate/probe/overlap_math.h"

namespace gpumux::calibration {
namespace {

std::string reference_csv() {
  const char* root = std::getenv("GPUMUX_SOURCE_DIR");
  return std::string(root ? root : ".") + "/../shared/data/h200/overlap_train.csv";
}

TEST(ResultCsv, OverlapHeaderIsTheReferenceDataHeader) {
  std::ifstream in(reference_csv());
  if (!in) GTEST_SKIP() << "reference data not found at " << reference_csv();
  std::string header;
  std::getline(in, header);
  if (!header.empty() && header.back() == '\r') header.pop_back();  // the file has CRLF
  EXPECT_EQ(header, kOverlapCsvHeader);
}

TEST(ResultCsv, RowsAreWrittenLikeTheReferenceData) {
  OverlapResultRow r{"mps", "mps-pair0", 1,       "H200-141GB", 33.0 / 132,
                     20,    0.5,         0.40641, 100,          0.98577};
  OverlapResultRow capped{"mps", "mps_atp50-pair5", 0, "H200-141GB", 1.0, 2000, 1.0, 0.5009, 50,
                          0.9834};
  std::ostringstream out;
  write_overlap_csv(out, {r, capped});
  EXPECT_EQ(out.str(), std::string(kOverlapCsvHeader) + "\n" +
                           "mps,mps-pair0,1,H200-141GB,0.2500,20,0.5,0.4064,100,0.9858\n"
                           "mps,mps_atp50-pair5,0,H200-141GB,1.0000,2000,1.0,0.5009,50,0.9834\n");
}

TEST(ResultCsv, ReferenceRowsSurviveARoundTrip) {
  std::ifstream in(reference_csv());
  if (!in) GTEST_SKIP() << "reference data not found at " << reference_csv();
  std::string line;
  std::getline(in, line);
  int checked = 0;
  while (std::getline(in, line) && checked < 20) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 10u) << line;
    OverlapResultRow r{f[0],
                       f[1],
                       std::stoi(f[2]),
                       f[3],
                       std::stod(f[4]),
                       std::stod(f[5]),
                       std::stod(f[6]),
                       std::stod(f[7]),
                       std::stoi(f[8]),
                       std::stod(f[9])};
    std::ostringstream out;
    write_overlap_csv(out, {r});
    EXPECT_EQ(out.str(), std::string(kOverlapCsvHeader) + "\n" + line + "\n");
    ++checked;
  }
  EXPECT_EQ(checked, 20);
}

TEST(ResultCsv, SoloRows) {
  std::ostringstream out;
  write_solo_csv(out, {{133.0 / 132, 133, 20, 40.123, 9.456}});
  EXPECT_EQ(out.str(), std::string(kSoloCsvHeader) + "\n1.0076,133,20,40.12,9.46\n");
}

TEST(ResultCsv, NumberFormat) {
  EXPECT_EQ(format_number(1.0, true), "1.0");
  EXPECT_EQ(format_number(0.5, true), "0.5");
  EXPECT_EQ(format_number(0.25, true), "0.25");
  EXPECT_EQ(format_number(2000, false), "2000");
  EXPECT_EQ(format_number(12.5, false), "12.5");
}

TEST(OverlapMath, BlocksForShare) {
  EXPECT_EQ(blocks_for_share(0.25, 132), 33);
  EXPECT_EQ(blocks_for_share(1.0, 132), 132);
  EXPECT_EQ(blocks_for_share(0.001, 132), 1);  // at least one block
  EXPECT_EQ(blocks_for_share(0.5, 1), 1);
}

TEST(OverlapMath, GapSpeedAndDuty) {
  EXPECT_DOUBLE_EQ(gap_us(200, 0.5), 200);
  EXPECT_DOUBLE_EQ(gap_us(200, 1.0), 0);
  EXPECT_DOUBLE_EQ(gap_us(100, 0.25), 300);
  EXPECT_DOUBLE_EQ(kernels_per_s(500, 0.5), 1000);
  EXPECT_DOUBLE_EQ(kernels_per_s(5, 0), 0);
  EXPECT_DOUBLE_EQ(relative_speed(250, 1000), 0.25);
  EXPECT_LT(relative_speed(250, 0), 0);
  // 20 us kernels with ~9.5 us launch + sync alone: busy 68% (docs/gpu-facts.md).
  EXPECT_NEAR(alone_duty(1e6 / 29.5, 20), 0.678, 1e-3);
  EXPECT_DOUBLE_EQ(launch_overhead_us(29.5, 20), 9.5);
}

TEST(DeviceNaming, KnownGpusMapToBuiltInProfiles) {
  const uint64_t gib = uint64_t{1} << 30;
  EXPECT_EQ(profile_name("NVIDIA H200", 140 * gib), "H200-141GB");
  EXPECT_EQ(profile_name("NVIDIA H100 80GB HBM3", 79 * gib), "H100-80GB");
  EXPECT_EQ(profile_name("NVIDIA H100 NVL", 94 * gib), "H100-94GB");
  EXPECT_EQ(profile_name("NVIDIA A100-SXM4-40GB", 39 * gib), "A100-40GB");
  EXPECT_EQ(profile_name("NVIDIA A100-SXM4-80GB", 79 * gib), "A100-80GB");
  EXPECT_EQ(profile_name("NVIDIA A100 80GB PCIe", 79 * gib), "A100-80GB");
  EXPECT_EQ(profile_name("NVIDIA A10", 22 * gib), "A10");
  EXPECT_EQ(profile_name("NVIDIA A30", 23 * gib), "A30-24GB");
  EXPECT_EQ(profile_name("Tesla T4", 15 * gib), "T4");
  EXPECT_EQ(profile_name("Tesla V100-SXM2-32GB", 31 * gib), "V100M32");
  EXPECT_EQ(profile_name("Tesla V100-SXM2-16GB", 15 * gib), "V100M16");
  EXPECT_EQ(profile_name("NVIDIA B200", 179 * gib), "B200-180GB");
}

TEST(DeviceNaming, UnknownGpusKeepTheirNameWithoutCsvBreakers) {
  EXPECT_EQ(profile_name("NVIDIA GeForce RTX 4090", 24ull << 30), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(profile_name("Odd,\"GPU\"", 1), "Odd  GPU ");
  // "A10" must not match inside "A100" nor "A1000".
  EXPECT_EQ(profile_name("NVIDIA RTX A1000", 8ull << 30), "NVIDIA RTX A1000");
}

}  // namespace
}  // namespace gpumux::calibration
