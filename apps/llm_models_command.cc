// `gpumux llm-models`: the built-in LLM catalogue (models/llm/llm_models.csv) as a table, one
// model in full (`llm-models NAME`), or JSON (--json).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "models/llm/llm_catalog.h"

namespace gpumux {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct LlmModelsArgs {
  std::string name;
  bool as_json = false;
};

nlohmann::json model_json(const LlmShape& m) {
  const LlmModelProvenance& p = llm_model_provenance(m.name);
  return {{"name", m.name},
          {"layers", m.layers},
          {"hidden", m.hidden},
          {"q_heads", m.q_heads},
          {"kv_heads", m.kv_heads},
          {"head_dim", m.head_dim},
          {"ffn", m.ffn},
          {"gated_mlp", m.gated_mlp},
          {"vocab", m.vocab},
          {"tied_embeddings", m.tied_embeddings},
          {"dtype_bytes", m.dtype_bytes},
          {"max_positions", m.max_positions},
          {"parameters", m.parameters()},
          {"weight_bytes", m.weight_bytes()},
          {"kv_bytes_per_token", m.kv_bytes_per_token()},
          {"source", p.source},
          {"note", p.note}};
}

void print_one(const LlmShape& m, std::ostream& out) {
  const LlmModelProvenance& p = llm_model_provenance(m.name);
  char text[512];
  std::snprintf(
      text, sizeof text,
      "%s\n"
      "  layers           %d\n"
      "  hidden           %d\n"
      "  heads q/kv       %d/%d (head dim %d)\n"
      "  FFN              %d (%s)\n"
      "  vocab            %d (%s embeddings)\n"
      "  dtype bytes      %d\n"
      "  max positions    %lld%s\n"
      "  parameters       %.3f B (%.1f M per layer)\n"
      "  weights          %.2f GiB\n"
      "  KV cache         %.0f bytes per token (%.1f KiB)\n",
      m.name.c_str(), m.layers, m.hidden, m.q_heads, m.kv_heads, m.head_dim, m.ffn,
      m.gated_mlp ? "gated: gate, up, down" : "not gated: up, down", m.vocab,
      m.tied_embeddings ? "tied" : "untied", m.dtype_bytes, static_cast<long long>(m.max_positions),
      m.max_positions == 0 ? " (not stated)" : "", m.parameters() / 1e9, m.layer_parameters() / 1e6,
      m.weight_bytes() / kGiB, m.kv_bytes_per_token(), m.kv_bytes_per_token() / 1024.0);
  out << text << "  source           " << p.source << "\n";
  if (!p.note.empty()) out << "  note             " << p.note << "\n";
}

int run_llm_models(const LlmModelsArgs& a, std::ostream& out, std::ostream&) {
  if (!a.name.empty()) {
    const LlmShape& m = find_llm_model(a.name, "gpumux llm-models " + a.name, "NAME");
    if (a.as_json) {
      out << model_json(m).dump(2) << "\n";
    } else {
      print_one(m, out);
    }
    return kExitOk;
  }
  const auto& models = builtin_llm_models();
  if (a.as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const LlmShape& m : models) list.push_back(model_json(m));
    out << list.dump(2) << "\n";
    return kExitOk;
  }
  out << "name                                 layers hidden  heads q/kv head dim    FFN   vocab"
         " params B weights GiB KV KiB/token max positions  source\n";
  for (const LlmShape& m : models) {
    char heads[32];
    std::snprintf(heads, sizeof heads, "%d/%d", m.q_heads, m.kv_heads);
    char line[256];
    std::snprintf(line, sizeof line, "%-36s %6d %6d %11s %8d %6d %7d %8.2f %11.2f %12.0f %13lld  ",
                  m.name.c_str(), m.layers, m.hidden, heads, m.head_dim, m.ffn, m.vocab,
                  m.parameters() / 1e9, m.weight_bytes() / kGiB, m.kv_bytes_per_token() / 1024.0,
                  static_cast<long long>(m.max_positions));
    out << line << llm_model_provenance(m.name).source << "\n";
  }
  out << "(parameters, weights and KV from the shape at the row's dtype; one model in full: "
         "gpumux llm-models NAME)\n";
  return kExitOk;
}

}  // namespace

void configure_llm_models_command(CLI::App& sub, CommandContext& ctx) {
  auto a = std::make_shared<LlmModelsArgs>();
  sub.add_option("NAME", a->name,
                 "one model in full: its catalogue name or the part after the slash, e.g. "
                 "Llama-3.1-8B");
  sub.add_flag("--json", a->as_json, "print the models (or the one named) as JSON");
  sub.footer("Example: gpumux llm-models Llama-3.1-8B");
  set_action(sub, ctx, a, run_llm_models);
}

}  // namespace gpumux
