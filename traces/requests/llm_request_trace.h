// Request traces of an LLM endpoint (docs/llm-serving.md "Loads"): one row per request with its
// arrival and its prompt and output tokens, in either of two CSV layouts told apart by the
// header:
//   - native:     arrival_s,prompt_tokens,output_tokens  (seconds from the trace's start)
//   - azure-llm:  TIMESTAMP,ContextTokens,GeneratedTokens (Azure's LLM inference traces,
//                 "YYYY-MM-DD hh:mm:ss[.fffffff]"; arrivals are taken relative to the first row)
// Rows must be in arrival order (both published Azure files are). A row with a token count that
// is not a positive integer, a bad time or a time before the previous row is an InputError
// naming file:line and the column; nothing is skipped silently.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/llm/llm_endpoint.h"

namespace gpumux {

struct LlmRequestTrace {
  std::string format;  // "native" or "azure-llm"
  std::vector<LlmRequestRow> rows;
};

// Reads the whole file (rows are 12 bytes each: the 1-hour Azure conv trace is 0.2 MB).
// Throws InputError for a missing file, an unknown header or a bad row.
LlmRequestTrace read_llm_request_trace(const std::string& path);

// The (prompt, output) pairs of a trace, for drawing token lengths of generated requests.
std::vector<std::pair<std::int32_t, std::int32_t>> token_pairs(const LlmRequestTrace& trace);

// Seconds since the epoch of an Azure TIMESTAMP ("2023-11-16 18:15:46.6805900"; the fraction
// is optional). Returns false for text of another shape.
bool parse_azure_timestamp(std::string_view text, double& seconds);

}  // namespace gpumux
