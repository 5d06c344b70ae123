// describe_tool() and friends: compact JSON objects written once, when an entry is registered.
#include "agent/mcp/describe.h"

#include <string_view>

#include "json/writer.h"

namespace slipstream::mcp::detail {

namespace {

void optional_string(json::Writer& w, std::string_view key, std::string_view value) {
    if (value.empty()) return;
    w.key(key);
    w.string(value);
}

void optional_raw(json::Writer& w, std::string_view key, std::string_view json) {
    if (json.empty()) return;
    w.key(key);
    w.raw(json);
}

}  // namespace

std::array<std::string, 3> describe_tool(const Tool& tool) {
    std::array<std::string, 3> out;
    for (std::size_t era = 0; era < out.size(); ++era) {
        json::Writer w(out[era]);
        w.begin_object();
        w.key("name");
        w.string(tool.name);
        if (era >= 2) optional_string(w, "title", tool.title);
        optional_string(w, "description", tool.description);
        w.key("inputSchema");
        w.raw(tool.input_schema_json);
        if (era >= 2) optional_raw(w, "outputSchema", tool.output_schema_json);
        if (era >= 1) optional_raw(w, "annotations", tool.annotations_json);
        if (era >= 2) optional_raw(w, "_meta", tool.meta_json);
        w.end_object();
    }
    return out;
}

std::array<std::string, 3> describe_resource(const Resource& resource) {
    std::array<std::string, 3> out;
    for (std::size_t era = 0; era < out.size(); ++era) {
        json::Writer w(out[era]);
        w.begin_object();
        w.key("uri");
        w.string(resource.uri);
        w.key("name");
        w.string(resource.name);
        if (era >= 2) optional_string(w, "title", resource.title);
        optional_string(w, "description", resource.description);
        optional_string(w, "mimeType", resource.mime_type);
        if (resource.size) {
            w.key("size");
            w.uint64(*resource.size);
        }
        optional_raw(w, "annotations", resource.annotations_json);
        w.end_object();
    }
    return out;
}

std::array<std::string, 3> describe_template(const ResourceTemplate& resource_template) {
    std::array<std::string, 3> out;
    for (std::size_t era = 0; era < out.size(); ++era) {
        json::Writer w(out[era]);
        w.begin_object();
        w.key("uriTemplate");
        w.string(resource_template.uri_template);
        w.key("name");
        w.string(resource_template.name);
        if (era >= 2) optional_string(w, "title", resource_template.title);
        optional_string(w, "description", resource_template.description);
        optional_string(w, "mimeType", resource_template.mime_type);
        optional_raw(w, "annotations", resource_template.annotations_json);
        w.end_object();
    }
    return out;
}

std::array<std::string, 3> describe_prompt(const Prompt& prompt) {
    std::array<std::string, 3> out;
    for (std::size_t era = 0; era < out.size(); ++era) {
        json::Writer w(out[era]);
        w.begin_object();
        w.key("name");
        w.string(prompt.name);
        if (era >= 2) optional_string(w, "title", prompt.title);
        optional_string(w, "description", prompt.description);
        w.key("arguments");
        w.begin_array();
        for (const PromptArgument& a : prompt.arguments) {
            w.begin_object();
            w.key("name");
            w.string(a.name);
            optional_string(w, "description", a.description);
            w.key("required");
            w.boolean(a.required);
            w.end_object();
        }
        w.end_array();
        w.end_object();
    }
    return out;
}

}  // namespace slipstream::mcp::detail
