// The JSON descriptions of tools, resources, templates and prompts that the list methods answer, per era.
#pragma once

#include <array>
#include <string>

#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

/// Index 0: 2024-11-05; 1: 2025-03-26 (tool annotations); 2: 2025-06-18+ (title, outputSchema, _meta).
std::array<std::string, 3> describe_tool(const Tool& tool);
std::array<std::string, 3> describe_resource(const Resource& resource);
std::array<std::string, 3> describe_template(const ResourceTemplate& resource_template);
std::array<std::string, 3> describe_prompt(const Prompt& prompt);

}  // namespace slipstream::mcp::detail
