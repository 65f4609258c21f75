// Microsoft Philly 2017 cluster_job_log (README.md "philly"): one JSON array of job objects.
// The array is parsed as a stream (each job object is converted, then discarded), so the 1 GB
// file never sits in memory as a JSON tree; the jobs themselves are sorted in memory (117k).
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "traces/formats/public/loaders.h"
#include "traces/formats/public/public_trace_source.h"
#include "traces/io/text_input.h"

namespace gpumux::public_traces {

namespace {

using nlohmann::json;

class Philly final : public PublicTraceSource {
 public:
  Philly(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : PublicTraceSource(defaults, seed, kWholeFile, "submitted_time"),
        in_(path),
        file_(add_file(path)) {}

 private:
  bool read_more() override {
    if (parsed_) return false;
    parsed_ = true;
    using Event = json::parse_event_t;
    auto callback = [this](int depth, Event event, json& value) {
      if (depth >= kMaxJsonDepth && (event == Event::object_start || event == Event::array_start)) {
        throw InputError(in_.where(), "",
                         "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      if (depth == 0 && event == Event::object_start) {
        throw InputError(in_.where(), "", "expected a JSON array of jobs, got an object");
      }
      if (depth != 1) return true;
      switch (event) {
        case Event::object_start:
          job_line_ = in_.line();
          return true;
        case Event::object_end:
          take(value);
          return false;  // discard: the array stays empty
        case Event::array_start:
        case Event::value:
          throw InputError(in_.where(), "", "expected a job object in the top-level array");
        default:
          return true;
      }
    };
    try {
      const json top = json::parse(TextInputIterator(in_), TextInputIterator(), callback);
      if (!top.is_array()) {
        throw InputError(in_.where(), "",
                         "expected a JSON array of jobs, got " + describe_json(top));
      }
    } catch (const json::parse_error& e) {
      throw InputError(in_.where(), "", std::string("invalid JSON: ") + e.what());
    } catch (const json::out_of_range& e) {  // a number beyond the range of a double
      throw InputError(in_.where(), "", std::string("number out of range: ") + e.what());
    }
    return true;
  }

  void at_end() override {
    if (first_submit_ != std::numeric_limits<std::int64_t>::max()) {
      set_time_origin(Time::from_seconds(static_cast<double>(start_of_day(first_submit_))));
    }
  }

  // A string member, or nullopt when absent, null or "None" (Philly writes Python's None).
  static std::optional<std::string> text(const json& o, const char* key, const std::string& where,
                                         const std::string& field) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
      throw InputError(where, field, "expected a string, got " + describe_json(*it));
    }
    std::string s = it->get<std::string>();
    if (s == "None" || s.empty()) return std::nullopt;
    return s;
  }

  static const json* array(const json& o, const char* key, const std::string& where,
                           const std::string& field) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return nullptr;
    if (!it->is_array()) {
      throw InputError(where, field, "expected an array, got " + describe_json(*it));
    }
    return &*it;
  }

  void take(const json& o) {
    const std::string where = in_.path() + ":" + std::to_string(job_line_);
    JobSpec job;
    JobFields fields(job);
    const auto id = text(o, "jobid", where, "jobid");
    if (!id) throw InputError(where, "jobid", "missing or empty");
    fields.id(*id);
    const auto status = text(o, "status", where, "status");
    const auto submitted = text(o, "submitted_time", where, "submitted_time");
    if (!submitted) throw InputError(where, "submitted_time", "missing or empty");
    const std::int64_t submit = parse_datetime_cell(*submitted, where, "submitted_time");
    if (const auto vc = text(o, "vc", where, "vc")) fields.tenant(*vc);
    const json* attempts = array(o, "attempts", where, "attempts");

    // Only the last attempt is read: earlier ones were cut short (failure, preemption).
    std::optional<std::string> start, end;
    std::int64_t gpus = 0;
    if (attempts != nullptr && !attempts->empty()) {
      const std::string field = "attempts[" + std::to_string(attempts->size() - 1) + "]";
      const json& last = attempts->back();
      if (!last.is_object()) {
        throw InputError(where, field, "expected an object, got " + describe_json(last));
      }
      start = text(last, "start_time", where, field + ".start_time");
      end = text(last, "end_time", where, field + ".end_time");
      if (const json* detail = array(last, "detail", where, field + ".detail")) {
        for (std::size_t i = 0; i < detail->size(); ++i) {
          const std::string f = field + ".detail[" + std::to_string(i) + "]";
          const json& d = (*detail)[i];
          if (!d.is_object()) {
            throw InputError(where, f, "expected an object, got " + describe_json(d));
          }
          if (const json* g = array(d, "gpus", where, f + ".gpus")) {
            gpus += static_cast<std::int64_t>(g->size());
          }
        }
      }
    }
    const std::int64_t start_s = start ? parse_datetime_cell(*start, where, "start_time") : 0;
    const std::int64_t end_s = end ? parse_datetime_cell(*end, where, "end_time") : 0;

    if (!status || (*status != "Pass" && *status != "Killed" && *status != "Failed")) {
      return skip("unknown_status");
    }
    if (attempts == nullptr || attempts->empty()) return skip("no_attempts");
    if (!start) return skip("no_start_time");
    if (!end) return skip("still_running");
    if (gpus == 0) return skip("no_gpus");
    if (end_s < start_s) return skip("end_before_start");

    fields.gpus(gpu_request(1.0, gpus, where, "gpus"));
    fields.submit(Time::from_seconds(static_cast<double>(submit)));
    fields.runtime(Time::from_seconds(static_cast<double>(end_s - start_s)));
    first_submit_ = std::min(first_submit_, submit);
    add(std::move(job), fields.present(), file_, job_line_);
  }

  TextInput in_;
  std::uint32_t file_;
  bool parsed_ = false;
  std::uint64_t job_line_ = 0;
  std::int64_t first_submit_ = std::numeric_limits<std::int64_t>::max();
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_philly(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<Philly>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
