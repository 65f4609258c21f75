#include "traces/fields/job_fields.h"

#include <bit>
#include <cmath>
#include <limits>

#include "traces/io/csv_reader.h"

namespace gpumux {

namespace {

constexpr double kMaxSeconds = kMaxInputSeconds;  // sim/base/units.h
constexpr std::int64_t kMaxMemoryMiB = std::int64_t{1} << 30;

constexpr std::array<JobFieldInfo, kJobFieldCount> kFields = {{
    {JobField::kId, "id", "", true, "", "job identifier, unique within the trace"},
    {JobField::kSubmit, "submit_s", "s", true, "", "arrival time; rows sorted by it"},
    {JobField::kGpus, "gpus", "GPUs", true, "",
     "gang size: all GPUs at once or none; 0 = a CPU-only job (runs on a pooled cluster)"},
    {JobField::kRuntime, "runtime_s", "s", true, "", "runtime alone on exclusive GPUs (work)"},
    {JobField::kSmUtil, "sm_util", "fraction", false, "1.0",
     "duty cycle alone: share of time kernels keep the GPU busy, (0, 1]"},
    {JobField::kSmShare, "sm_share", "fraction", false, "1.0",
     "share of the GPU's SMs its kernels occupy while running, (0, 1]"},
    {JobField::kMemory, "memory_mib", "MiB", false, "0", "peak device memory per GPU"},
    {JobField::kKind, "kind", "", false, "training", "training or inference"},
    {JobField::kMigProfile, "mig_profile", "", false, "", "requested MIG profile, e.g. 3g.40gb"},
    {JobField::kTenant, "tenant", "", false, "", "owner (user, team or virtual cluster)"},
    {JobField::kPriority, "priority", "", false, "0", "larger is more important"},
    {JobField::kKernel, "kernel_us", "us", false, "1000", "mean kernel length"},
    {JobField::kCheckpoint, "checkpoint_s", "s", false, "0",
     "checkpoint interval; 0 = none (a killed job restarts from scratch)"},
    {JobField::kMemoryLimit, "memory_limit_mib", "MiB", false, "0",
     "per-job memory limit (MPS pinned limit; the memory quota under fractional); 0 = none"},
    {JobField::kCpus, "cpus", "cores", false, "0",
     "CPU cores the whole job holds while running; counted against pool or node CPUs"},
    {JobField::kGpuMilli, "gpu_milli", "milli-GPU", false, "1000",
     "compute share of each GPU, [1, 1000] (Kubernetes GPU-share requests); 1000 = whole GPU"},
    {JobField::kMemBwUtil, "mem_bw_util", "fraction", false, "0",
     "memory-bandwidth utilization alone on the whole GPU, [0, 1] (nvidia-smi utilization.memory "
     "/ 100); 0 = not measured, taken as sm_util x sm_share"},
}};

bool is_text_field(JobField f) {
  return f == JobField::kId || f == JobField::kKind || f == JobField::kMigProfile ||
         f == JobField::kTenant;
}

// Valid range of each numeric field, shared by cells and defaults.
std::pair<double, double> numeric_range(JobField f) {
  switch (f) {
    case JobField::kSubmit:
    case JobField::kRuntime:
    case JobField::kCheckpoint:
      return {0.0, kMaxSeconds};
    case JobField::kGpus:
      return {0.0, 1e6};
    case JobField::kCpus:
      return {0.0, 1e9};
    case JobField::kSmUtil:
    case JobField::kSmShare:
      return {1e-6, 1.0};
    case JobField::kMemory:
    case JobField::kMemoryLimit:
      return {0.0, static_cast<double>(kMaxMemoryMiB)};
    case JobField::kPriority:
      return {-1e9, 1e9};
    case JobField::kKernel:
      return {1.0, 1e9};
    case JobField::kGpuMilli:
      return {1.0, 1000.0};
    case JobField::kMemBwUtil:
      return {0.0, 1.0};
    default:
      return {0.0, 0.0};
  }
}

JobKind parse_kind(std::string_view text, const std::string& where) {
  if (text == "training" || text == "train") return JobKind::kTraining;
  if (text == "inference" || text == "serving") return JobKind::kInference;
  throw InputError(where, "kind",
                   "expected 'training' or 'inference', got '" + std::string(text) + "'");
}

// Stores a numeric value into its field; `value` is already range-checked.
void store_numeric(JobSpec& job, JobField f, double value) {
  switch (f) {
    case JobField::kSubmit:
      job.submit = Time::from_seconds(value);
      break;
    case JobField::kRuntime:
      job.runtime = Time::from_seconds(value);
      break;
    case JobField::kCheckpoint:
      job.checkpoint_interval = Time::from_seconds(value);
      break;
    case JobField::kGpus:
      job.gpus = static_cast<int>(value);
      break;
    case JobField::kSmUtil:
      job.sm_util = value;
      break;
    case JobField::kSmShare:
      job.sm_share = value;
      break;
    case JobField::kCpus:
      job.cpus = value;
      break;
    case JobField::kMemory:
      job.memory = MemoryMiB(static_cast<std::int64_t>(std::llround(value)));
      break;
    case JobField::kMemoryLimit:
      job.memory_limit = MemoryMiB(static_cast<std::int64_t>(std::llround(value)));
      break;
    case JobField::kPriority:
      job.priority = static_cast<int>(std::llround(value));
      break;
    case JobField::kKernel:
      job.kernel_length = Time::from_us(static_cast<std::int64_t>(std::llround(value)));
      break;
    case JobField::kGpuMilli:
      job.gpu_milli = static_cast<int>(std::llround(value));
      break;
    case JobField::kMemBwUtil:
      job.mem_bw_util = value;
      break;
    default:
      break;
  }
}

void store_text(JobSpec& job, JobField f, std::string_view text, const std::string& where) {
  switch (f) {
    case JobField::kId:
      job.id.assign(text);
      break;
    case JobField::kKind:
      job.kind = parse_kind(text, where);
      break;
    case JobField::kMigProfile:
      job.mig_profile.assign(text);
      break;
    case JobField::kTenant:
      job.tenant.assign(text);
      break;
    default:
      break;
  }
}

// Copies numeric field f's member from `from` (what store_numeric stored there).
void copy_numeric(JobSpec& job, const JobSpec& from, JobField f) {
  switch (f) {
    case JobField::kSubmit:
      job.submit = from.submit;
      break;
    case JobField::kRuntime:
      job.runtime = from.runtime;
      break;
    case JobField::kCheckpoint:
      job.checkpoint_interval = from.checkpoint_interval;
      break;
    case JobField::kGpus:
      job.gpus = from.gpus;
      break;
    case JobField::kSmUtil:
      job.sm_util = from.sm_util;
      break;
    case JobField::kSmShare:
      job.sm_share = from.sm_share;
      break;
    case JobField::kCpus:
      job.cpus = from.cpus;
      break;
    case JobField::kMemory:
      job.memory = from.memory;
      break;
    case JobField::kMemoryLimit:
      job.memory_limit = from.memory_limit;
      break;
    case JobField::kPriority:
      job.priority = from.priority;
      break;
    case JobField::kKernel:
      job.kernel_length = from.kernel_length;
      break;
    case JobField::kGpuMilli:
      job.gpu_milli = from.gpu_milli;
      break;
    case JobField::kMemBwUtil:
      job.mem_bw_util = from.mem_bw_util;
      break;
    default:
      break;
  }
}

static_assert([] {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (static_cast<std::size_t>(kFields[i].field) != i) return false;
  }
  return true;
}(), "kFields is in JobField order: fill_marked's bit order is field order");

}  // namespace

std::span<const JobFieldInfo> job_fields() { return kFields; }

const JobFieldInfo& job_field_info(JobField field) { return kFields[static_cast<int>(field)]; }

bool find_job_field(std::string_view name, JobField& out) {
  for (const auto& f : kFields) {
    if (f.name == name) {
      out = f.field;
      return true;
    }
  }
  return false;
}

void set_job_field(JobSpec& job, JobField field, std::string_view text, const std::string& where) {
  const std::string_view name = job_field_info(field).name;
  if (is_text_field(field)) {
    if (field == JobField::kId && text.empty()) {
      throw InputError(where, std::string(name), "must not be empty");
    }
    store_text(job, field, text, where);
    return;
  }
  const auto [lo, hi] = numeric_range(field);
  if (field == JobField::kGpus || field == JobField::kMemory || field == JobField::kPriority ||
      field == JobField::kMemoryLimit || field == JobField::kGpuMilli) {
    store_numeric(
        job, field,
        static_cast<double>(parse_int_cell(text, where, name, static_cast<std::int64_t>(lo),
                                           static_cast<std::int64_t>(hi))));
  } else {
    store_numeric(job, field, parse_number_cell(text, where, name, lo, hi));
  }
}

TraceDefaults::TraceDefaults() {
  for (const auto& f : kFields) {
    if (f.required) continue;
    const int i = static_cast<int>(f.field);
    source_[i] = "built-in default";
    if (is_text_field(f.field)) {
      text_[i] = std::string(f.builtin_default);
    } else {
      numeric_[i] = Distribution::constant(std::stod(std::string(f.builtin_default)));
    }
  }
  settle();
}

void TraceDefaults::settle() {
  Rng unused(0);  // a constant draws nothing
  for (const auto& f : kFields) {
    const int i = static_cast<int>(f.field);
    if (f.required) continue;
    if (f.field == JobField::kKind) kind_ = parse_kind(text_[i], "<defaults>");
    is_constant_[i] = !is_text_field(f.field) && numeric_[i].is_constant();
    if (is_constant_[i]) {
      constant_[i] = numeric_value(f.field, unused);
      store_numeric(constant_job_, f.field, constant_[i]);
    }
  }
}

double TraceDefaults::numeric_value(JobField field, Rng& rng) const {
  const auto [lo, hi] = numeric_range(field);
  double v = std::clamp(numeric_[static_cast<int>(field)].draw(rng), lo, hi);
  if (field == JobField::kGpus || field == JobField::kGpuMilli) v = std::round(v);
  return v;
}

void TraceDefaults::override_from(JsonObject& defaults) {
  for (const auto& f : kFields) {
    if (!defaults.has(f.name)) {
      defaults.allow(f.name);
      continue;
    }
    const int i = static_cast<int>(f.field);
    const std::string key(f.name);
    if (f.required) {
      throw InputError(defaults.where(key), key,
                       "a required trace field cannot have a default; the trace must carry it");
    }
    if (is_text_field(f.field)) {
      text_[i] = defaults.required_string(key);
      if (f.field == JobField::kKind) parse_kind(text_[i], defaults.where(key));
    } else {
      const auto [lo, hi] = numeric_range(f.field);
      numeric_[i] = Distribution::parse(defaults.raw(key), defaults.file(), defaults.pointer(key),
                                        key, lo, hi);
    }
    source_[i] = "scenario trace.defaults";
  }
  defaults.finish();
  settle();
}

void TraceDefaults::fill(JobSpec& job, JobField field, Rng& rng) const {
  const int i = static_cast<int>(field);
  if (field == JobField::kKind) {
    job.kind = kind_;
  } else if (is_text_field(field)) {
    static const std::string kWhere = "<defaults>";  // built once, not per job
    store_text(job, field, text_[i], kWhere);
  } else {
    // A constant's value is worked out and stored once (it draws nothing); the others draw in
    // field order.
    if (is_constant_[i]) {
      copy_numeric(job, constant_job_, field);
    } else {
      store_numeric(job, field, numeric_value(field, rng));
    }
  }
}

void TraceDefaults::fill_marked(JobSpec& job, Rng& rng) const {
  // Bit i is field i (kFields is in field order): the lowest bit first is field order.
  for (std::uint32_t bits = job.defaulted_fields; bits != 0; bits &= bits - 1) {
    fill(job, static_cast<JobField>(std::countr_zero(bits)), rng);
  }
}

nlohmann::json TraceDefaults::value_json(JobField field) const {
  const int i = static_cast<int>(field);
  if (is_text_field(field)) return text_[i];
  return numeric_[i].to_json();
}

}  // namespace gpumux
