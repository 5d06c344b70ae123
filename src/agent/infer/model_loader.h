// load_gguf_model / load_llama2c_model: a model file to ModelWeights, with the shape checks a hostile file needs.
#pragma once

#include <memory>
#include <string>

#include "agent/infer/gguf_file.h"
#include "agent/infer/model_weights.h"
#include "base/result.h"

namespace slipstream::agent::infer {

/// From a GGUF file of architecture llama or qwen2 (others: invalid_argument naming it). Every tensor's type and
/// shape is checked against the metadata; a missing tensor is named in the error. The file is kept alive by the
/// weights.
base::Result<ModelWeights> load_gguf_model(std::shared_ptr<const GgufFile> file);

/// From a llama2.c checkpoint (.bin, the legacy float32 format; negative vocab size = untied classifier).
base::Result<ModelWeights> load_llama2c_model(const std::string& path);

}  // namespace slipstream::agent::infer
