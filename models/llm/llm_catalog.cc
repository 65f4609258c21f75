#include "models/llm/llm_catalog.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"

namespace gpumux {

extern const std::string_view kLlmModelsCsv;  // llm_models_csv.cc, generated from the CSV

namespace {

constexpr std::string_view kOrigin = "models/llm/llm_models.csv";
const std::vector<std::string_view> kColumns = {
    "name",      "layers", "hidden",          "q_heads",     "kv_heads",      "head_dim", "ffn",
    "gated_mlp", "vocab",  "tied_embeddings", "dtype_bytes", "max_positions", "source",   "note"};

[[noreturn]] void fail(const std::string& where, std::string_view column, const std::string& what) {
  std::string m = where;
  if (!column.empty()) m += ": column '" + std::string(column) + "'";
  throw std::logic_error(m + ": " + what);
}

// One CSV line into cells: comma-separated, a cell may be in double quotes ("" for a quote).
std::vector<std::string> split_cells(std::string_view line, const std::string& where) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        cells.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else {
        quoted = false;
        if (i + 1 < line.size() && line[i + 1] != ',') {
          fail(where, "", "text after a closing quote");
        }
      }
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c == '"' && cells.back().empty()) {
      quoted = true;
    } else {
      cells.back() += c;
    }
  }
  if (quoted) fail(where, "", "unterminated quote");
  return cells;
}

std::int64_t integer(const std::string& text, const std::string& where, std::string_view column,
                     std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    fail(where, column,
         "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
             "], got '" + text + "'");
  }
  return value;
}

bool flag(const std::string& text, const std::string& where, std::string_view column) {
  return integer(text, where, column, 0, 1) == 1;
}

std::string_view short_name(std::string_view name) {
  const auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

struct Catalog {
  std::vector<LlmShape> models;
  std::vector<LlmModelProvenance> provenance;
  std::map<std::string, std::size_t, std::less<>> by_name;                // full names
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_short;  // after the slash
};

const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog out;
    out.models = parse_llm_catalog(kLlmModelsCsv, std::string(kOrigin), &out.provenance);
    for (std::size_t i = 0; i < out.models.size(); ++i) {
      out.by_name.emplace(out.models[i].name, i);
      out.by_short[std::string(short_name(out.models[i].name))].push_back(i);
    }
    return out;
  }();
  return c;
}

}  // namespace

std::vector<LlmShape> parse_llm_catalog(std::string_view csv, const std::string& origin,
                                        std::vector<LlmModelProvenance>* provenance) {
  std::vector<LlmShape> out;
  std::map<std::string, std::size_t, std::less<>> seen;  // name -> line
  std::size_t line_number = 0;
  bool header_read = false;
  while (!csv.empty()) {
    const auto end = csv.find('\n');
    std::string_view line = csv.substr(0, end);
    csv = end == std::string_view::npos ? std::string_view{} : csv.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = origin + ":" + std::to_string(line_number);
    if (line.empty()) {
      if (csv.empty()) break;  // the file's last newline
      fail(where, "", "blank line (every line is the header or a model)");
    }
    const auto cells = split_cells(line, where);
    if (!header_read) {
      if (cells.size() != kColumns.size() ||
          !std::equal(cells.begin(), cells.end(), kColumns.begin())) {
        std::string expected;
        for (const auto column : kColumns) {
          expected += (expected.empty() ? "" : ",") + std::string(column);
        }
        fail(where, "", "expected the header '" + expected + "'");
      }
      header_read = true;
      continue;
    }
    if (cells.size() != kColumns.size()) {
      fail(where, "",
           "expected " + std::to_string(kColumns.size()) + " cells, got " +
               std::to_string(cells.size()));
    }
    LlmShape m;
    m.name = cells[0];
    if (m.name.empty() || m.name.find_first_of(" \t") != std::string::npos ||
        m.name.back() == '/') {
      fail(where, "name", "expected a non-empty name without blanks, got '" + m.name + "'");
    }
    if (const auto it = seen.find(m.name); it != seen.end()) {
      fail(where, "name", "'" + m.name + "' is also on line " + std::to_string(it->second));
    }
    seen.emplace(m.name, line_number);
    m.layers = static_cast<int>(integer(cells[1], where, "layers", 1, 1000));
    m.hidden = static_cast<int>(integer(cells[2], where, "hidden", 1, 1 << 20));
    m.q_heads = static_cast<int>(integer(cells[3], where, "q_heads", 1, 4096));
    m.kv_heads = static_cast<int>(integer(cells[4], where, "kv_heads", 1, m.q_heads));
    if (m.q_heads % m.kv_heads != 0) {
      fail(where, "kv_heads",
           "q_heads (" + cells[3] + ") must be a multiple of kv_heads (" + cells[4] + ")");
    }
    m.head_dim = static_cast<int>(integer(cells[5], where, "head_dim", 1, 4096));
    m.ffn = static_cast<int>(integer(cells[6], where, "ffn", 1, 1 << 22));
    m.gated_mlp = flag(cells[7], where, "gated_mlp");
    m.vocab = static_cast<int>(integer(cells[8], where, "vocab", 1, 1 << 24));
    m.tied_embeddings = flag(cells[9], where, "tied_embeddings");
    m.dtype_bytes = static_cast<int>(integer(cells[10], where, "dtype_bytes", 1, 8));
    m.max_positions = integer(cells[11], where, "max_positions", 0, std::int64_t{1} << 32);
    if (cells[12].empty()) fail(where, "source", "every model names where its shape comes from");
    if (provenance) provenance->push_back({cells[12], cells[13]});
    out.push_back(std::move(m));
  }
  if (!header_read) fail(origin + ":1", "", "empty catalogue (no header)");
  if (out.empty()) fail(origin + ":2", "", "no model rows");
  return out;
}

const std::vector<LlmShape>& builtin_llm_models() { return catalog().models; }

std::vector<std::string> llm_model_names() {
  std::vector<std::string> names;
  for (const LlmShape& m : builtin_llm_models()) names.push_back(m.name);
  return names;
}

const LlmModelProvenance& llm_model_provenance(const std::string& full_name) {
  static const LlmModelProvenance kNone;
  const Catalog& c = catalog();
  const auto it = c.by_name.find(full_name);
  return it == c.by_name.end() ? kNone : c.provenance[it->second];
}

const LlmShape& find_llm_model(std::string_view name, const std::string& where,
                               const std::string& field) {
  const Catalog& c = catalog();
  if (const auto it = c.by_name.find(name); it != c.by_name.end()) return c.models[it->second];
  if (const auto it = c.by_short.find(name); it != c.by_short.end()) {
    if (it->second.size() == 1) return c.models[it->second.front()];
    std::vector<std::string> full;
    for (const std::size_t i : it->second) full.push_back(c.models[i].name);
    throw InputError(where, field,
                     "LLM model '" + std::string(name) + "' is ambiguous: give the full name (" +
                         join_names(full) + ")");
  }
  // Suggestions among both spellings: a mistyped short name is closest to a short name.
  std::vector<std::string> known = llm_model_names();
  for (const auto& [short_form, rows] : c.by_short) {
    if (rows.size() == 1 && short_form != c.models[rows.front()].name) known.push_back(short_form);
  }
  std::string text = "unknown LLM model '" + std::string(name) +
                     "' (valid: " + join_names(llm_model_names()) +
                     "; or the part after the slash)";
  const auto near = closest_names(std::string(name), known, 3);
  if (!near.empty()) {
    text += " (did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) {
      text += (i == 0 ? "'" : i + 1 == near.size() ? " or '" : ", '") + near[i] + "'";
    }
    text += "?)";
  }
  throw InputError(where, field, text);
}

}  // namespace gpumux
