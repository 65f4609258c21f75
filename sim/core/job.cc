#include "sim/core/job.h"

namespace gpumux {

std::string_view job_kind_name(JobKind kind) {
  switch (kind) {
    case JobKind::kTraining:
      return "training";
    case JobKind::kInference:
      return "inference";
  }
  return "unknown";
}

}  // namespace gpumux
