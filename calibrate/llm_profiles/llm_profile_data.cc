#include "calibrate/llm_profiles/llm_profile_data.h"

#include <filesystem>
#include <map>

#include "models/llm/llm_catalog.h"
#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux::calibration {

namespace {

namespace fs = std::filesystem;

// A CSV file with a header: cells by column name.
class Table {
 public:
  explicit Table(const std::string& path) : csv_(path) {
    if (!csv_.next(header_)) throw InputError(path, "", "empty file: expected a header line");
    for (std::size_t i = 0; i < header_.size(); ++i) column_[header_[i]] = i;
  }
  bool has(const std::string& name) const { return column_.count(name) > 0; }
  void require(const std::vector<std::string>& names) const {
    for (const std::string& n : names) {
      if (!has(n)) throw InputError(csv_.path() + ":1", n, "missing column");
    }
  }
  bool next() {
    if (!csv_.next(row_)) return false;
    if (row_.size() != header_.size()) {
      throw InputError(csv_.where(), "",
                       "expected " + std::to_string(header_.size()) + " fields, got " +
                           std::to_string(row_.size()));
    }
    return true;
  }
  const std::string& cell(const std::string& name) const { return row_[column_.at(name)]; }
  double number(const std::string& name, double min, double max) const {
    return parse_number_cell(cell(name), csv_.where(), name, min, max);
  }
  std::string where() const { return csv_.where(); }
  const std::string& path() const { return csv_.path(); }

 private:
  CsvReader csv_;
  std::vector<std::string> header_, row_;
  std::map<std::string, std::size_t> column_;
};

constexpr double kBig = 1e12;

struct VidurOp {
  const char* column;
  LlmOp op;
  LlmOpClass cls;
};
// emb is once per forward; Vidur's add is a separate residual add (vLLM fuses it into the norm).
constexpr VidurOp kVidurOps[] = {
    {"emb", LlmOp::kEmbedding, LlmOpClass::kElementwise},
    {"input_layernorm", LlmOp::kNorm, LlmOpClass::kElementwise},
    {"attn_pre_proj", LlmOp::kQkv, LlmOpClass::kGemm},
    {"attn_rope", LlmOp::kRope, LlmOpClass::kElementwise},
    {"attn_post_proj", LlmOp::kAttentionOut, LlmOpClass::kGemm},
    {"post_attention_layernorm", LlmOp::kNorm, LlmOpClass::kElementwise},
    {"mlp_up_proj", LlmOp::kGateUp, LlmOpClass::kGemm},
    {"mlp_act", LlmOp::kActivation, LlmOpClass::kElementwise},
    {"mlp_down_proj", LlmOp::kDown, LlmOpClass::kGemm},
    {"add", LlmOp::kResidualAdd, LlmOpClass::kElementwise},
};

struct DenseOp {
  const char* name;
  LlmOp op;
  LlmOpClass cls;
};
constexpr DenseOp kDenseOps[] = {
    {"embedding", LlmOp::kEmbedding, LlmOpClass::kElementwise},
    {"layernorm", LlmOp::kNorm, LlmOpClass::kElementwise},
    {"qkv_proj", LlmOp::kQkv, LlmOpClass::kGemm},
    {"rotary_emb", LlmOp::kRope, LlmOpClass::kElementwise},
    {"o_proj", LlmOp::kAttentionOut, LlmOpClass::kGemm},
    {"gate_up_proj", LlmOp::kGateUp, LlmOpClass::kGemm},
    {"act_fn", LlmOp::kActivation, LlmOpClass::kElementwise},
    {"down_proj", LlmOp::kDown, LlmOpClass::kGemm},
    {"final_layernorm", LlmOp::kNorm, LlmOpClass::kElementwise},
    {"lm_head", LlmOp::kLmHead, LlmOpClass::kLmHead},
    {"sampler", LlmOp::kSampler, LlmOpClass::kSampler},
};

int add_shape(LlmProfileData& data, const LlmShape& shape, int tp, const std::string& where) {
  for (std::size_t i = 0; i < data.shapes.size(); ++i) {
    const LlmProfileShape& s = data.shapes[i];
    if (s.tp == tp && s.shape.hidden == shape.hidden && s.shape.q_heads == shape.q_heads &&
        s.shape.kv_heads == shape.kv_heads && s.shape.head_dim == shape.head_dim &&
        s.shape.ffn == shape.ffn && s.shape.vocab == shape.vocab &&
        s.shape.gated_mlp == shape.gated_mlp) {
      return static_cast<int>(i);
    }
  }
  data.shapes.push_back({shape, tp, where});
  return static_cast<int>(data.shapes.size()) - 1;
}

void read_vidur_mlp(LlmProfileData& data, const std::string& path) {
  Table t(path);
  t.require({"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp",
             "num_tokens", "num_tensor_parallel_workers"});
  data.files.push_back(path);
  while (t.next()) {
    // Every tensor-parallel degree: the columns give the whole model, the profiled block is one
    // GPU's share of it (RooflineTimeModel divides by tp).
    const int tp = static_cast<int>(t.number("num_tensor_parallel_workers", 1, 1024));
    LlmShape s;
    s.name = fs::path(path).parent_path().filename().string();
    s.layers = 1;
    s.hidden = static_cast<int>(t.number("n_embd", 1, 1e6));
    s.q_heads = static_cast<int>(t.number("n_head", 1, 1e4));
    s.kv_heads = static_cast<int>(t.number("n_kv_head", 1, 1e4));
    s.head_dim = s.hidden / s.q_heads;
    s.ffn = static_cast<int>(t.number("n_expanded_embd", 1, 1e7));
    s.vocab = static_cast<int>(t.number("vocab_size", 1, 1e8));
    const std::string gated = t.cell("use_gated_mlp");
    if (gated != "True" && gated != "False") {
      throw InputError(t.where(), "use_gated_mlp", "expected True or False, got '" + gated + "'");
    }
    s.gated_mlp = gated == "True";
    const int shape = add_shape(data, s, tp, path);
    const double tokens = t.number("num_tokens", 1, 1e7);
    for (const VidurOp& op : kVidurOps) {
      const std::string column = std::string("time_stats.") + op.column + ".median";
      if (!t.has(column) || t.cell(column).empty()) continue;  // phi-2 has no post-attn norm
      LlmProfilePoint p;
      p.cls = op.cls;
      p.op = op.op;
      p.name = op.column;
      p.shape = shape;
      p.tokens = tokens;
      p.holdout_key = tokens;
      p.measured_us = 1000.0 * t.number(column, 0, kBig);
      p.where = t.where();
      if (p.measured_us > 0.0) data.points.push_back(p);
    }
  }
}

void read_vidur_attention(LlmProfileData& data, const std::string& path) {
  Table t(path);
  t.require({"n_embd", "n_q_head", "n_kv_head", "num_tensor_parallel_workers", "batch_size",
             "prefill_chunk_size", "kv_cache_size", "is_prefill", "time_stats.attn_prefill.median",
             "time_stats.attn_decode.median", "time_stats.attn_input_reshape.median",
             "time_stats.attn_output_reshape.median"});
  data.files.push_back(path);
  while (t.next()) {
    LlmShape s;
    s.name = "vidur-attention";
    s.layers = 1;
    s.hidden = static_cast<int>(t.number("n_embd", 1, 1e6));
    s.q_heads = static_cast<int>(t.number("n_q_head", 1, 1e4));
    s.kv_heads = static_cast<int>(t.number("n_kv_head", 1, 1e4));
    s.head_dim = s.hidden / s.q_heads;
    s.ffn = s.hidden;  // unused by attention
    s.vocab = 1;
    const int tp = static_cast<int>(t.number("num_tensor_parallel_workers", 1, 1024));
    const int shape = add_shape(data, s, tp, path);
    const bool prefill = t.cell("is_prefill") == "True";
    const double kv = t.number("kv_cache_size", 0, 1e8);
    auto ms = [&](const std::string& op) {
      const std::string c = "time_stats." + op + ".median";
      return t.cell(c).empty() ? 0.0 : t.number(c, 0, kBig);
    };
    LlmProfilePoint p;
    p.shape = shape;
    p.where = t.where();
    p.measured_us = 1000.0 * (ms(prefill ? "attn_prefill" : "attn_decode") +
                              ms("attn_input_reshape") + ms("attn_output_reshape"));
    if (prefill) {
      const double c = t.number("prefill_chunk_size", 1, 1e8);
      p.cls = LlmOpClass::kPrefillAttention;
      p.name = "attn_prefill";
      p.prefill_seqs = 1;
      p.prefill_tokens = c;
      p.prefill_pairs = c * kv + c * (c + 1) / 2;
      p.holdout_key = c;
    } else {
      const double b = t.number("batch_size", 1, 1e8);
      p.cls = LlmOpClass::kDecodeAttention;
      p.name = "attn_decode";
      p.decode_seqs = b;
      p.decode_context = b * (kv + 1);
      p.holdout_key = kv;
    }
    if (p.measured_us > 0.0) data.points.push_back(p);
  }
}

int serving_sim_shape(LlmProfileData& data, const std::string& model, const std::string& folder) {
  if (model.empty()) {
    throw InputError("--model", "model",
                     folder +
                         " holds LLMServingSim profiles (dense.csv): name the model they "
                         "profile with --model (an `gpumux llm-models` name)");
  }
  const LlmShape& whole = find_llm_model(model, "--model", "model");
  LlmShape s = whole;
  s.layers = 1;
  return add_shape(data, s, 1, folder);
}

void read_dense(LlmProfileData& data, const std::string& path, int shape, bool per_sequence) {
  Table t(path);
  const std::string count = per_sequence ? "sequences" : "tokens";
  t.require({"layer", count, "time_us"});
  data.files.push_back(path);
  while (t.next()) {
    const std::string& layer = t.cell("layer");
    const DenseOp* op = nullptr;
    for (const DenseOp& d : kDenseOps) {
      if (layer == d.name) op = &d;
    }
    if (op == nullptr) {
      throw InputError(t.where(), "layer", "unknown operator '" + layer + "'");
    }
    LlmProfilePoint p;
    p.cls = op->cls;
    p.op = op->op;
    p.name = layer;
    p.shape = shape;
    p.tokens = t.number(count, 1, 1e8);
    p.holdout_key = p.tokens;
    p.measured_us = t.number("time_us", 0, kBig);
    p.where = t.where();
    if (p.measured_us > 0.0) data.points.push_back(p);
  }
}

void read_serving_sim_attention(LlmProfileData& data, const std::string& path, int shape) {
  Table t(path);
  t.require({"prefill_chunk", "kv_prefill", "n_decode", "kv_decode", "time_us"});
  data.files.push_back(path);
  while (t.next()) {
    const double c = t.number("prefill_chunk", 0, 1e8);
    const double kp = t.number("kv_prefill", 0, 1e9);
    const double n = t.number("n_decode", 0, 1e8);
    const double kd = t.number("kv_decode", 0, 1e9);
    LlmProfilePoint p;
    p.shape = shape;
    p.where = t.where();
    p.measured_us = t.number("time_us", 0, kBig);
    if (c > 0) {
      p.prefill_seqs = 1;
      p.prefill_tokens = c;
      p.prefill_pairs = c * kp + c * (c + 1) / 2;
    }
    if (n > 0) {
      p.decode_seqs = n;
      p.decode_context = n * (kd + 1);
    }
    if (c > 0 && n > 0) {
      p.cls = LlmOpClass::kMixedAttention;
      p.name = "attention_mixed";
      p.holdout_key = c;
    } else if (c > 0) {
      p.cls = LlmOpClass::kPrefillAttention;
      p.name = "attention_prefill";
      p.holdout_key = c;
    } else if (n > 0) {
      p.cls = LlmOpClass::kDecodeAttention;
      p.name = "attention_decode";
      p.holdout_key = kd;
    } else {
      continue;
    }
    if (p.measured_us > 0.0) data.points.push_back(p);
  }
}

}  // namespace

const char* llm_op_class_name(LlmOpClass c) {
  switch (c) {
    case LlmOpClass::kGemm:
      return "gemm";
    case LlmOpClass::kLmHead:
      return "lm_head";
    case LlmOpClass::kElementwise:
      return "elementwise";
    case LlmOpClass::kSampler:
      return "sampler";
    case LlmOpClass::kPrefillAttention:
      return "attention_prefill";
    case LlmOpClass::kDecodeAttention:
      return "attention_decode";
    case LlmOpClass::kMixedAttention:
      return "attention_mixed";
  }
  return "?";
}

LlmProfileData read_llm_profiles(const std::vector<std::string>& folders,
                                 const std::string& model) {
  LlmProfileData data;
  for (const std::string& folder : folders) {
    const fs::path dir(folder);
    if (!fs::is_directory(dir)) throw InputError(folder, "", "not a folder");
    const std::size_t before = data.files.size();
    const bool serving_sim = fs::exists(dir / "dense.csv") || fs::exists(dir / "per_sequence.csv");
    if (fs::exists(dir / "mlp.csv")) read_vidur_mlp(data, (dir / "mlp.csv").string());
    if (serving_sim) {
      const int shape = serving_sim_shape(data, model, folder);
      if (fs::exists(dir / "dense.csv"))
        read_dense(data, (dir / "dense.csv").string(), shape, false);
      if (fs::exists(dir / "per_sequence.csv")) {
        read_dense(data, (dir / "per_sequence.csv").string(), shape, true);
      }
      if (fs::exists(dir / "attention.csv")) {
        read_serving_sim_attention(data, (dir / "attention.csv").string(), shape);
      }
    } else if (fs::exists(dir / "attention.csv")) {
      read_vidur_attention(data, (dir / "attention.csv").string());
    }
    if (data.files.size() == before) {
      throw InputError(folder, "",
                       "no profile found: expected Vidur's mlp.csv and/or attention.csv, or "
                       "LLMServingSim's dense.csv, per_sequence.csv, attention.csv");
    }
  }
  return data;
}

double predict_llm_point(const RooflineTimeModel& model, const LlmProfilePoint& p) {
  switch (p.cls) {
    case LlmOpClass::kGemm:
    case LlmOpClass::kLmHead:
    case LlmOpClass::kElementwise:
    case LlmOpClass::kSampler:
      return model.op_us(p.op, p.tokens);
    case LlmOpClass::kPrefillAttention:
    case LlmOpClass::kDecodeAttention:
    case LlmOpClass::kMixedAttention:
      return model.prefill_attention_us(p.prefill_seqs, p.prefill_tokens, p.prefill_pairs) +
             model.decode_attention_us(p.decode_seqs, p.decode_context, p.prefill_tokens > 0);
  }
  return 0.0;
}

}  // namespace gpumux::calibration
