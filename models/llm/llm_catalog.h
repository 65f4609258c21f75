// The built-in LLM catalogue: the transformer shapes of models/llm/llm_models.csv (sources per
// row there and in models/llm/README.md), compiled into the library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/llm/llm_shape.h"

namespace gpumux {

// Every catalogue row, in the file's order. Parsed and checked on the first call (thread-safe);
// a malformed row is a defect of the build, not of the user's input: std::logic_error naming
// "llm_models.csv:LINE" and the column.
const std::vector<LlmShape>& builtin_llm_models();

// The row named `name`: its full name ("meta-llama/Llama-3.1-8B") or, when exactly one row has
// it, the part after the slash ("Llama-3.1-8B"). Otherwise InputError at `where`, field `field`,
// listing the names and the closest ones ("did you mean ...?"); an ambiguous short name lists
// the full names it could mean.
const LlmShape& find_llm_model(std::string_view name, const std::string& where,
                               const std::string& field);

// Every full name, in the catalogue's order.
std::vector<std::string> llm_model_names();

// The catalogue row's `source` and `note` columns for the model (full name), "" when there is
// none: LlmShape keeps only the shape.
struct LlmModelProvenance {
  std::string source;
  std::string note;
};
const LlmModelProvenance& llm_model_provenance(const std::string& full_name);

// The parser behind builtin_llm_models(), for tests: `csv` with the catalogue's header and
// columns. Throws std::logic_error naming "<origin>:LINE" (and the column) on a wrong header, a
// row with the wrong number of cells, a value out of range or not an integer, a name given
// twice. Fills `provenance` (one per row) when given.
std::vector<LlmShape> parse_llm_catalog(std::string_view csv, const std::string& origin,
                                        std::vector<LlmModelProvenance>* provenance = nullptr);

}  // namespace gpumux
