// Registry: the tools, resources, templates and prompts of a server, each with its JSON description per era.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/mcp/header_params.h"
#include "agent/mcp/tool_gate.h"
#include "agent/mcp/uri_template.h"
#include "json/schema/schema.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

/// Which generation of the protocol a description is written for: 0 = 2024-11-05, 1 = 2025-03-26 (annotations),
/// 2 = 2025-06-18 and later (title, outputSchema, _meta).
inline constexpr std::size_t kEras = 3;
std::size_t era_of(std::string_view version);

struct ToolEntry {
    Tool tool;
    json::schema::Schema input;
    json::schema::Schema output;  // compiled() only with an output schema
    std::shared_ptr<ToolGate> gate;
    std::array<std::string, kEras> json;
    std::vector<HeaderParam> header_params;  // x-mcp-header annotations (2026-07-28 Streamable HTTP)
};

struct ResourceEntry {
    Resource resource;
    std::array<std::string, kEras> json;
};

struct TemplateEntry {
    ResourceTemplate resource_template;
    UriTemplate compiled;
    std::array<std::string, kEras> json;
};

struct PromptEntry {
    Prompt prompt;
    std::array<std::string, kEras> json;
};

enum class ListKind : unsigned char { kTools, kResources, kPrompts };

/// Thread-safe. Lookups hand out shared pointers, so a removed entry stays valid for the calls using it.
class Registry {
  public:
    /// Throws std::invalid_argument (bad name, URI, template or schema; a duplicate).
    void add_tool(Tool tool);
    void add_resource(Resource resource);
    void add_template(ResourceTemplate resource_template);
    void add_prompt(Prompt prompt);
    void set_completion(CompletionHandler handler);
    bool remove_tool(std::string_view name);
    bool remove_resource(std::string_view uri);
    bool remove_prompt(std::string_view name);

    std::shared_ptr<const ToolEntry> tool(std::string_view name) const;
    std::shared_ptr<const ResourceEntry> resource(std::string_view uri) const;
    /// The first template matching `uri`, with its variables.
    std::shared_ptr<const TemplateEntry> match_template(std::string_view uri,
                                                        std::vector<std::pair<std::string, std::string>>& vars) const;
    std::shared_ptr<const PromptEntry> prompt(std::string_view name) const;
    std::shared_ptr<const CompletionHandler> completion() const;

    /// A page of descriptions `[begin, begin + count)` joined by commas, and the total.
    std::string page(ListKind kind, std::size_t era, std::size_t begin, std::size_t count, std::size_t& total) const;
    std::string template_page(std::size_t era, std::size_t begin, std::size_t count, std::size_t& total) const;

    /// Called after a change of a list (outside the lock), for the list_changed notifications.
    void on_change(std::function<void(ListKind)> fn);

  private:
    void changed(ListKind kind);

    mutable std::mutex mu_;
    std::vector<std::shared_ptr<const ToolEntry>> tools_;
    std::unordered_map<std::string, std::shared_ptr<const ToolEntry>> tools_by_name_;
    std::vector<std::shared_ptr<const ResourceEntry>> resources_;
    std::unordered_map<std::string, std::shared_ptr<const ResourceEntry>> resources_by_uri_;
    std::vector<std::shared_ptr<const TemplateEntry>> templates_;
    std::vector<std::shared_ptr<const PromptEntry>> prompts_;
    std::unordered_map<std::string, std::shared_ptr<const PromptEntry>> prompts_by_name_;
    std::shared_ptr<const CompletionHandler> completion_;
    std::function<void(ListKind)> on_change_;
};

}  // namespace slipstream::mcp::detail
