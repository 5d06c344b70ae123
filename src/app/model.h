// open_model(): the model server a Config asks for (--model), its OpenAI routes mounted on the App.
#pragma once

#include <memory>

#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"
#include "slipstream/model_server.h"

namespace slipstream::app {

/// Null when --model is not set. Otherwise loads the model (blocking: call before listening), starts its
/// scheduler and mounts /v1/chat/completions, /v1/completions and /v1/models. The loader's error when the file
/// cannot be used.
base::Result<std::unique_ptr<ModelServer>> open_model(const Config& config, App& app);

}  // namespace slipstream::app
