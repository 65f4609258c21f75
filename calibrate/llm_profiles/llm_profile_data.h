// Measured operator profiles of LLM engines, read into one list of points the LLM performance
// model (models/llm/roofline_time_model.h) predicts one by one. Two layouts
// (../shared/data/llm-serving/README.md documents their columns):
// - Vidur: a folder with mlp.csv (per-operator times of one layer in ms, `median` used, TP 1 rows
//   only; the shape from its n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size,
//   use_gated_mlp columns) and/or its attention.csv (prefill/decode kernel plus the KV reshape
//   around it, shape from n_embd, n_q_head, n_kv_head, num_tensor_parallel_workers).
// - LLMServingSim: a folder with dense.csv, per_sequence.csv and attention.csv (us), the shape
//   given by --model (the LLM catalogue).
#pragma once

#include <string>
#include <vector>

#include "models/llm/roofline_time_model.h"
#include "sim/llm/llm_shape.h"

namespace gpumux::calibration {

// The operator classes the model has parameters for (and the fit report's rows).
enum class LlmOpClass {
  kGemm,              // QKV, O, gate+up, down
  kLmHead,            // predicted with the GEMM parameters, fitted with them
  kElementwise,       // norms, rope, activation, residual add, embedding
  kSampler,           //
  kPrefillAttention,  // attention rows with only a prefill chunk
  kDecodeAttention,   // attention rows with only decoding sequences
  kMixedAttention,    // both: fits the mixed-decode parameters
};
const char* llm_op_class_name(LlmOpClass c);

struct LlmProfileShape {
  LlmShape shape;
  int tp = 1;
  std::string where;  // the file it came from
};

struct LlmProfilePoint {
  LlmOpClass cls = LlmOpClass::kGemm;
  LlmOp op = LlmOp::kQkv;  // token operators
  std::string name;        // the operator's name in its file
  int shape = 0;           // index into LlmProfileData::shapes
  double tokens = 0.0;     // token operators: tokens (sequences for LM head, sampler)
  // Attention: one iteration's batch.
  double prefill_seqs = 0.0, prefill_tokens = 0.0, prefill_pairs = 0.0;
  double decode_seqs = 0.0, decode_context = 0.0;
  double measured_us = 0.0;
  // The count the cross-validation holds out by: tokens, the prefill chunk, or the decode KV
  // length per sequence.
  double holdout_key = 0.0;
  std::string where;  // "file:line"
};

struct LlmProfileData {
  std::vector<LlmProfileShape> shapes;
  std::vector<LlmProfilePoint> points;
  std::vector<std::string> files;
};

// Reads every folder; `model` ("" when not given) names the catalogue shape of LLMServingSim
// folders. Throws InputError naming the file and line (or the folder when it holds no profile
// this reader knows, or the option when --model is missing).
LlmProfileData read_llm_profiles(const std::vector<std::string>& folders, const std::string& model);

// The prediction of one point by `model` (a model of the point's shape).
double predict_llm_point(const RooflineTimeModel& model, const LlmProfilePoint& p);

}  // namespace gpumux::calibration
