// open_llm_proxy(): the validated LLM proxy route a Config asks for (--llm-upstream), mounted on the App.
#pragma once

#include <memory>

#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"
#include "slipstream/llm_proxy.h"

namespace slipstream::app {

/// Null when --llm-upstream is not set. Otherwise reads the schema (and the API key file), builds the proxy and
/// mounts POST --llm-proxy-route. kInvalidArgument naming the option: no schema, an unreadable file, a schema that
/// does not compile, a bad URL or CA file.
base::Result<std::unique_ptr<LlmProxy>> open_llm_proxy(const Config& config, App& app);

}  // namespace slipstream::app
