// Registry: registration checks (names, URIs, schemas), lookups and list pages.
#include "agent/mcp/registry.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "agent/mcp/describe.h"
#include "agent/mcp/jsonrpc.h"
#include "agent/mcp/protocol.h"
#include "json/schema/schema_error.h"

namespace slipstream::mcp::detail {

namespace {

// 1-128 of [A-Za-z0-9_.-] (the 2025-11-25 rule for tool names; used for prompts too).
void check_name(std::string_view what, std::string_view name) {
    if (name.empty() || name.size() > 128)
        throw std::invalid_argument(std::string(what) + " name must have 1 to 128 characters");
    for (char c : name) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok)
            throw std::invalid_argument(std::string(what) + " name '" + std::string(name) +
                                        "' may only hold letters, digits, '_', '-' and '.'");
    }
}

// A URI needs a scheme ("info://server", "file:///x"): letters first, then letters, digits, '+', '-', '.', ':'.
void check_uri(std::string_view uri) {
    const std::size_t colon = uri.find(':');
    bool ok = colon != std::string_view::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(uri[0]));
    for (std::size_t i = 0; ok && i < colon; ++i) {
        const char c = uri[i];
        ok = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    }
    for (char c : uri)
        if (static_cast<unsigned char>(c) <= 0x20) ok = false;
    if (!ok) throw std::invalid_argument("resource URI '" + std::string(uri) + "' is not an absolute URI");
}

// Parses `text` (must be a JSON object) and returns it compact; "" stays "".
std::string normalize_object(std::string_view what, const std::string& text) {
    if (text.empty()) return {};
    Document doc;
    auto parsed = json::parse(text, doc.arena);
    if (!parsed.is_ok() || !parsed.value()->is_object())
        throw std::invalid_argument(std::string(what) + " must be a JSON object");
    return to_json(*parsed.value());
}

json::schema::Schema compile_schema(std::string_view what, const std::string& text) {
    Document doc;
    auto parsed = json::parse(text, doc.arena);
    if (!parsed.is_ok() || !parsed.value()->is_object())
        throw std::invalid_argument(std::string(what) + " must be a JSON object");
    const json::Value* type = parsed.value()->find("type");
    if (type == nullptr || !type->is_string() || type->as_string() != "object")
        throw std::invalid_argument(std::string(what) + " must have \"type\": \"object\"");
    try {
        return json::schema::compile(*parsed.value());
    } catch (const json::schema::SchemaError& e) {
        throw std::invalid_argument(std::string(what) + ": " + e.what());
    }
}

template <typename T>
void erase_from(std::vector<std::shared_ptr<const T>>& v, const std::shared_ptr<const T>& item) {
    v.erase(std::remove(v.begin(), v.end(), item), v.end());
}

template <typename T>
std::string join_page(const std::vector<std::shared_ptr<const T>>& items, std::size_t era, std::size_t begin,
                      std::size_t count) {
    std::string out;
    const std::size_t end = std::min(items.size(), begin + count);
    for (std::size_t i = begin; i < end; ++i) {
        if (i != begin) out.push_back(',');
        out += items[i]->json[era];
    }
    return out;
}

}  // namespace

std::size_t era_of(std::string_view version) {
    const Features f = features_of(version);
    return f.titles ? 2 : f.annotations ? 1 : 0;
}

void Registry::add_tool(Tool tool) {
    check_name("tool", tool.name);
    if (!tool.handler) throw std::invalid_argument("tool '" + tool.name + "' has no handler");
    auto entry = std::make_shared<ToolEntry>();
    entry->input = compile_schema("tool '" + tool.name + "' inputSchema", tool.input_schema_json);
    tool.input_schema_json = normalize_object("inputSchema", tool.input_schema_json);
    entry->header_params = header_params(tool.name, tool.input_schema_json);
    if (!tool.output_schema_json.empty()) {
        entry->output = compile_schema("tool '" + tool.name + "' outputSchema", tool.output_schema_json);
        tool.output_schema_json = normalize_object("outputSchema", tool.output_schema_json);
    }
    tool.annotations_json = normalize_object("annotations", tool.annotations_json);
    tool.meta_json = normalize_object("_meta", tool.meta_json);
    entry->gate = std::make_shared<ToolGate>(tool.max_concurrency);
    entry->json = describe_tool(tool);
    entry->tool = std::move(tool);
    {
        std::lock_guard lock(mu_);
        if (tools_by_name_.count(entry->tool.name))
            throw std::invalid_argument("tool '" + entry->tool.name + "' is already registered");
        tools_by_name_.emplace(entry->tool.name, entry);
        tools_.push_back(std::move(entry));
    }
    changed(ListKind::kTools);
}

void Registry::add_resource(Resource resource) {
    check_uri(resource.uri);
    if (resource.name.empty()) throw std::invalid_argument("resource '" + resource.uri + "' has no name");
    if (!resource.handler) throw std::invalid_argument("resource '" + resource.uri + "' has no handler");
    resource.annotations_json = normalize_object("annotations", resource.annotations_json);
    auto entry = std::make_shared<ResourceEntry>();
    entry->json = describe_resource(resource);
    entry->resource = std::move(resource);
    {
        std::lock_guard lock(mu_);
        if (resources_by_uri_.count(entry->resource.uri))
            throw std::invalid_argument("resource '" + entry->resource.uri + "' is already registered");
        resources_by_uri_.emplace(entry->resource.uri, entry);
        resources_.push_back(std::move(entry));
    }
    changed(ListKind::kResources);
}

void Registry::add_template(ResourceTemplate resource_template) {
    auto compiled = UriTemplate::compile(resource_template.uri_template);
    if (!compiled.is_ok())
        throw std::invalid_argument("URI template '" + resource_template.uri_template +
                                    "': " + compiled.status().message());
    check_uri(resource_template.uri_template);
    if (resource_template.name.empty()) throw std::invalid_argument("resource template has no name");
    if (!resource_template.handler) throw std::invalid_argument("resource template has no handler");
    resource_template.annotations_json = normalize_object("annotations", resource_template.annotations_json);
    auto entry = std::make_shared<TemplateEntry>();
    entry->compiled = std::move(compiled.value());
    entry->json = describe_template(resource_template);
    entry->resource_template = std::move(resource_template);
    {
        std::lock_guard lock(mu_);
        for (const auto& t : templates_)
            if (t->resource_template.uri_template == entry->resource_template.uri_template)
                throw std::invalid_argument("URI template '" + t->resource_template.uri_template +
                                            "' is already registered");
        templates_.push_back(std::move(entry));
    }
    changed(ListKind::kResources);
}

void Registry::add_prompt(Prompt prompt) {
    check_name("prompt", prompt.name);
    if (!prompt.handler) throw std::invalid_argument("prompt '" + prompt.name + "' has no handler");
    for (std::size_t i = 0; i < prompt.arguments.size(); ++i) {
        if (prompt.arguments[i].name.empty()) throw std::invalid_argument("prompt argument without a name");
        for (std::size_t j = 0; j < i; ++j)
            if (prompt.arguments[j].name == prompt.arguments[i].name)
                throw std::invalid_argument("prompt argument '" + prompt.arguments[i].name + "' appears twice");
    }
    auto entry = std::make_shared<PromptEntry>();
    entry->json = describe_prompt(prompt);
    entry->prompt = std::move(prompt);
    {
        std::lock_guard lock(mu_);
        if (prompts_by_name_.count(entry->prompt.name))
            throw std::invalid_argument("prompt '" + entry->prompt.name + "' is already registered");
        prompts_by_name_.emplace(entry->prompt.name, entry);
        prompts_.push_back(std::move(entry));
    }
    changed(ListKind::kPrompts);
}

void Registry::set_completion(CompletionHandler handler) {
    std::lock_guard lock(mu_);
    completion_ = handler ? std::make_shared<const CompletionHandler>(std::move(handler)) : nullptr;
}

bool Registry::remove_tool(std::string_view name) {
    {
        std::lock_guard lock(mu_);
        auto it = tools_by_name_.find(std::string(name));
        if (it == tools_by_name_.end()) return false;
        erase_from(tools_, it->second);
        tools_by_name_.erase(it);
    }
    changed(ListKind::kTools);
    return true;
}

bool Registry::remove_resource(std::string_view uri) {
    {
        std::lock_guard lock(mu_);
        auto it = resources_by_uri_.find(std::string(uri));
        if (it == resources_by_uri_.end()) return false;
        erase_from(resources_, it->second);
        resources_by_uri_.erase(it);
    }
    changed(ListKind::kResources);
    return true;
}

bool Registry::remove_prompt(std::string_view name) {
    {
        std::lock_guard lock(mu_);
        auto it = prompts_by_name_.find(std::string(name));
        if (it == prompts_by_name_.end()) return false;
        erase_from(prompts_, it->second);
        prompts_by_name_.erase(it);
    }
    changed(ListKind::kPrompts);
    return true;
}

std::shared_ptr<const ToolEntry> Registry::tool(std::string_view name) const {
    std::lock_guard lock(mu_);
    auto it = tools_by_name_.find(std::string(name));
    return it == tools_by_name_.end() ? nullptr : it->second;
}

std::shared_ptr<const ResourceEntry> Registry::resource(std::string_view uri) const {
    std::lock_guard lock(mu_);
    auto it = resources_by_uri_.find(std::string(uri));
    return it == resources_by_uri_.end() ? nullptr : it->second;
}

std::shared_ptr<const TemplateEntry> Registry::match_template(
    std::string_view uri, std::vector<std::pair<std::string, std::string>>& vars) const {
    std::lock_guard lock(mu_);
    for (const auto& t : templates_) {
        auto m = t->compiled.match(uri);
        if (m) {
            vars = std::move(*m);
            return t;
        }
    }
    return nullptr;
}

std::shared_ptr<const PromptEntry> Registry::prompt(std::string_view name) const {
    std::lock_guard lock(mu_);
    auto it = prompts_by_name_.find(std::string(name));
    return it == prompts_by_name_.end() ? nullptr : it->second;
}

std::shared_ptr<const CompletionHandler> Registry::completion() const {
    std::lock_guard lock(mu_);
    return completion_;
}

std::string Registry::page(ListKind kind, std::size_t era, std::size_t begin, std::size_t count,
                           std::size_t& total) const {
    std::lock_guard lock(mu_);
    switch (kind) {
        case ListKind::kTools:
            total = tools_.size();
            return join_page(tools_, era, begin, count);
        case ListKind::kResources:
            total = resources_.size();
            return join_page(resources_, era, begin, count);
        case ListKind::kPrompts:
            total = prompts_.size();
            return join_page(prompts_, era, begin, count);
    }
    return {};
}

std::string Registry::template_page(std::size_t era, std::size_t begin, std::size_t count, std::size_t& total) const {
    std::lock_guard lock(mu_);
    total = templates_.size();
    return join_page(templates_, era, begin, count);
}

void Registry::on_change(std::function<void(ListKind)> fn) {
    std::lock_guard lock(mu_);
    on_change_ = std::move(fn);
}

void Registry::changed(ListKind kind) {
    std::function<void(ListKind)> fn;
    {
        std::lock_guard lock(mu_);
        fn = on_change_;
    }
    if (fn) fn(kind);
}

}  // namespace slipstream::mcp::detail
