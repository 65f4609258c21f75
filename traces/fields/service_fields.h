// The native trace's optional service columns (docs/services.md "Inference services"): a row of kind
// inference that fills any of them is a service. They are not JobFields: a trace without them
// reads exactly as before, and their absence is never reported as a default.
//
// A row yields a partial ServiceSpec in which the fields it did not give are NaN (max_batch:
// 0); scenarios/service_config.h completes it with the scenario's `services` section.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "sim/core/job.h"

namespace gpumux {

inline constexpr std::array<std::string_view, 5> kServiceColumns = {
    "request_rate_per_s", "service_ms", "slo_ms", "max_batch", "timeout_ms"};

// The index of a service column in kServiceColumns, or false.
bool find_service_column(std::string_view name, int& index);

// A spec with nothing given.
std::shared_ptr<ServiceSpec> empty_service_row();

// Parses one non-empty cell of column `index` into `row`. Throws InputError at `where`.
void set_service_cell(ServiceSpec& row, int index, std::string_view text, const std::string& where);

// Throws InputError at `where` unless the job may carry service columns (kind inference).
void check_service_row(const JobSpec& job, const std::string& where);

}  // namespace gpumux
