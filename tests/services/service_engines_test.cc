// The table of service engines (sim/services/registry.h): every entry builds from its declared
// defaults, its replicas serve, the request engine's keys choose what it sees of a shared GPU,
// and an unknown `mode` names the table's engines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sim/base/input_error.h"
#include "sim/services/registry.h"

namespace gpumux {
namespace {

std::unique_ptr<ServiceEngine> build(const ServiceEngineInfo& entry, const nlohmann::json& keys) {
  JsonObject services(keys, "s.json", "/services");
  auto engine = entry.make(services);
  services.finish();
  return engine;
}

TEST(ServiceEngines, TheTableHoldsRequestFirstThenAnalytic) {
  const auto& engines = service_engines().entries();
  ASSERT_EQ(engines.size(), 2u);
  EXPECT_EQ(engines[0].name, "request");
  EXPECT_EQ(engines[1].name, "analytic");
  EXPECT_EQ(default_service_engine()->name(), "request");
}

TEST(ServiceEngines, EveryEntryBuildsFromItsDefaultsAndServes) {
  ServiceSpec spec;
  spec.rate_per_s = 50.0;
  spec.service_ms = 5.0;
  std::set<std::string_view> names;
  for (const ServiceEngineInfo& entry : service_engines()) {
    EXPECT_TRUE(names.insert(entry.name).second) << entry.name;
    EXPECT_FALSE(entry.summary.empty()) << entry.name;
    const auto engine = build(entry, nlohmann::json::object());
    EXPECT_EQ(engine->name(), entry.name);
    // Every declared parameter is listed at its default.
    const auto declared = default_parameters(entry);
    EXPECT_EQ(declared.size(), entry.parameters.size()) << entry.name;
    for (const ModelParameter& p : declared) EXPECT_EQ(p.source, "default") << p.name;
    auto replica = engine->make_replica(spec, 0.0, 7);
    replica->set_rate(0.0, 1.0);
    replica->end(10e6);  // 10 s at 50 requests/s
    EXPECT_GT(replica->counts().served, 300.0) << entry.name;
  }
}

TEST(ServiceEngines, TheRequestEngineSeesTheSchedulesItsKeysKeep) {
  const SliceContext slices;
  const BlockContext blocks;
  const ServiceEngineInfo& request = service_engines().entries().front();
  const auto both = build(request, nlohmann::json::object());
  EXPECT_EQ(both->seen({&slices, nullptr}).slices, &slices);
  EXPECT_EQ(both->seen({nullptr, &blocks}).blocks, &blocks);
  EXPECT_TRUE(both->simulates_each_request());
  const auto fluid = build(request, {{"time_slicing", "fluid"}, {"mps", "fluid"}});
  EXPECT_EQ(fluid->seen({&slices, nullptr}).slices, nullptr);
  EXPECT_EQ(fluid->seen({nullptr, &blocks}).blocks, nullptr);
  const auto analytic = build(service_engines().entries()[1], nlohmann::json::object());
  EXPECT_FALSE(analytic->simulates_each_request());
}

TEST(ServiceEngines, ABadKeyOrAnUnknownNameIsAnInputError) {
  try {
    build(service_engines().entries().front(), {{"time_slicing", "analytic"}});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'slices' or 'fluid'"), std::string::npos) << e.what();
  }
  try {
    service_engines().get("requests", "s.json#/services/mode", "mode");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown service engine 'requests' (valid: request, "
                                         "analytic) (did you mean 'request'?)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gpumux
