// The MCP server the conformance suite (@modelcontextprotocol/conformance) expects: its "everything" tools,
// resources and prompts, on Streamable HTTP at /mcp (tests/e2e/test_mcp_conformance.py runs the suite against it).
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "app/serve_main.h"
#include "mcp_conformance_modern.h"
#include "slipstream/json.h"
#include "slipstream/mcp.h"
#include "slipstream/slipstream.h"

namespace mcp = slipstream::mcp;

namespace {

// A 1x1 red PNG and a WAV header with no samples.
constexpr const char* kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr const char* kWav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

std::string image_block() {
    return std::string(R"({"type":"image","data":")") + kPng + R"(","mimeType":"image/png"})";
}

// A tool without arguments answering `content_json` (a JSON array of content blocks).
mcp::Tool fixed_tool(std::string name, std::string description, std::string content_json, bool is_error = false) {
    mcp::Tool t;
    t.name = std::move(name);
    t.description = std::move(description);
    t.handler = [content_json = std::move(content_json), is_error](mcp::Call call) {
        mcp::ToolResult r;
        r.content_json = content_json;
        r.is_error = is_error;
        call.reply(std::move(r));
    };
    return t;
}

// A tool that runs `steps` on a thread, 50 ms apart, then answers a text.
mcp::Tool paced_tool(std::string name, std::string description, void (*step)(mcp::Call&, int)) {
    mcp::Tool t;
    t.name = std::move(name);
    t.description = std::move(description);
    t.handler = [step](mcp::Call call) {
        std::thread([call = std::move(call), step]() mutable {
            for (int i = 0; i < 3; ++i) {
                if (i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
                if (call.cancelled()) return;
                step(call, i);
            }
            call.reply(mcp::ToolResult::text("Tool execution completed"));
        }).detach();
    };
    return t;
}

// A tool that sends `method` with the params `make_params(arguments)` to the client and answers `prefix` + the
// client's answer; without the client capability, a tool error.
mcp::Tool asking_tool(std::string name, std::string description, std::string input_schema, std::string method,
                      std::string (*make_params)(slipstream::JsonView), std::string prefix) {
    mcp::Tool t;
    t.name = std::move(name);
    t.description = std::move(description);
    t.input_schema_json = std::move(input_schema);
    t.handler = [method, make_params, prefix](mcp::Call call) {
        auto shared = std::make_shared<mcp::Call>(std::move(call));
        const bool sent =
            shared->request(method, make_params(shared->arguments()), [shared, prefix](bool ok, std::string json) {
                if (ok)
                    shared->reply(mcp::ToolResult::text(prefix + json));
                else
                    shared->reply(mcp::ToolResult::error("The client refused: " + json));
            });
        if (!sent) shared->reply(mcp::ToolResult::error("The client does not support " + method));
    };
    return t;
}

std::string sampling_params(slipstream::JsonView args) {
    return R"({"messages":[{"role":"user","content":{"type":"text","text":)" +
           slipstream::json_quote(args.get("prompt").as_string()) + R"(}}],"maxTokens":100})";
}

std::string elicitation_params(slipstream::JsonView args) {
    return R"({"message":)" + slipstream::json_quote(args.get("message").as_string()) +
           R"(,"requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"User's response"},)"
           R"("email":{"type":"string","description":"User's email address"}},"required":["username","email"]}})";
}

std::string defaults_params(slipstream::JsonView) {
    return R"({"message":"Please confirm your details","requestedSchema":{"type":"object","properties":{)"
           R"("name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},)"
           R"("score":{"type":"number","default":95.5},)"
           R"("status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},)"
           R"("verified":{"type":"boolean","default":true}}}})";
}

std::string enums_params(slipstream::JsonView) {
    return R"({"message":"Please choose","requestedSchema":{"type":"object","properties":{)"
           R"("untitledSingle":{"type":"string","enum":["option1","option2","option3"]},)"
           R"("titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},)"
           R"({"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},)"
           R"("legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],)"
           R"("enumNames":["Option One","Option Two","Option Three"]},)"
           R"("untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},)"
           R"("titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},)"
           R"({"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}})";
}

void add_tools(mcp::Server& s) {
    s.tool(asking_tool("test_sampling", "Asks the client's LLM",
                       R"({"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]})",
                       "sampling/createMessage", sampling_params, "LLM response: "));
    s.tool(asking_tool("test_elicitation", "Asks the user",
                       R"({"type":"object","properties":{"message":{"type":"string"}},"required":["message"]})",
                       "elicitation/create", elicitation_params, "User response: "));
    s.tool(asking_tool("test_elicitation_sep1034_defaults", "Asks with defaults", R"({"type":"object"})",
                       "elicitation/create", defaults_params, "Elicitation completed: "));
    s.tool(asking_tool("test_elicitation_sep1330_enums", "Asks with enums", R"({"type":"object"})",
                       "elicitation/create", enums_params, "Elicitation completed: "));
    s.tool(fixed_tool("test_simple_text", "Returns simple text",
                      R"([{"type":"text","text":"This is a simple text response for testing."}])"));
    s.tool(fixed_tool("test_image_content", "Returns an image", "[" + image_block() + "]"));
    s.tool(fixed_tool("test_audio_content", "Returns audio",
                      std::string(R"([{"type":"audio","data":")") + kWav + R"(","mimeType":"audio/wav"}])"));
    s.tool(fixed_tool("test_embedded_resource", "Returns an embedded resource",
                      R"([{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain",)"
                      R"("text":"This is an embedded resource content."}}])"));
    s.tool(fixed_tool("test_multiple_content_types", "Returns text, an image and a resource",
                      R"([{"type":"text","text":"Multiple content types test:"},)" + image_block() +
                          R"(,{"type":"resource","resource":{"uri":"test://mixed-content-resource",)"
                          R"("mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}])"));
    s.tool(fixed_tool("test_error_handling", "Always fails",
                      R"([{"type":"text","text":"This tool intentionally returns an error for testing"}])", true));
    s.tool(paced_tool("test_tool_with_logging", "Logs three messages", [](mcp::Call& call, int i) {
        static const char* const kMessages[] = {"\"Tool execution started\"", "\"Tool processing data\"",
                                                "\"Tool execution completed\""};
        call.log(mcp::LogLevel::kInfo, kMessages[i]);
    }));
    s.tool(paced_tool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100",
                      [](mcp::Call& call, int i) { call.progress(i * 50.0, 100.0); }));
    mcp::Tool reconnection;
    reconnection.name = "test_reconnection";
    reconnection.description = "Ends its stream's connection mid-call; the client resumes with GET (SEP-1699)";
    reconnection.handler = [](mcp::Call call) {
        call.release_stream();
        std::thread([call = std::move(call)]() mutable {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            call.reply(mcp::ToolResult::text("Reconnection test completed successfully"));
        }).detach();
    };
    s.tool(std::move(reconnection));
    mcp::Tool schema_tool;
    schema_tool.name = "json_schema_2020_12_tool";
    schema_tool.description = "Tool with JSON Schema 2020-12 features";
    schema_tool.input_schema_json =
        R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":)"
        R"({"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},)"
        R"("properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},)"
        R"("contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},)"
        R"("email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],)"
        R"("if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},)"
        R"("then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false})";
    schema_tool.handler = [](mcp::Call call) { call.reply(mcp::ToolResult::text(call.arguments_json())); };
    s.tool(std::move(schema_tool));
}

mcp::Resource text_resource(std::string uri, std::string name, std::string text) {
    mcp::Resource r;
    r.uri = uri;
    r.name = std::move(name);
    r.description = "A text resource for testing";
    r.mime_type = "text/plain";
    r.handler = [uri, text = std::move(text)](mcp::Call call) {
        call.reply_json(R"({"contents":[{"uri":)" + slipstream::json_quote(uri) +
                        R"(,"mimeType":"text/plain","text":)" + slipstream::json_quote(text) + "}]}");
    };
    return r;
}

void add_resources(mcp::Server& s) {
    s.resource(text_resource("test://static-text", "static-text", "This is the content of the static text resource."));
    s.resource(text_resource("test://watched-resource", "watched-resource", "Watched resource content."));
    mcp::Resource binary;
    binary.uri = "test://static-binary";
    binary.name = "static-binary";
    binary.description = "A binary resource for testing";
    binary.mime_type = "image/png";
    binary.handler = [](mcp::Call call) {
        call.reply_json(std::string(R"({"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":")") +
                        kPng + "\"}]}");
    };
    s.resource(std::move(binary));
    mcp::ResourceTemplate t;
    t.uri_template = "test://template/{id}/data";
    t.name = "template-data";
    t.description = "Data for an id";
    t.mime_type = "application/json";
    t.handler = [](mcp::Call call) {
        const std::string id(call.arguments().get("id").as_string());
        const std::string text = R"({"id":)" + slipstream::json_quote(id) + R"(,"templateTest":true,"data":)" +
                                 slipstream::json_quote("Data for ID: " + id) + "}";
        call.reply_json(R"({"contents":[{"uri":)" + slipstream::json_quote("test://template/" + id + "/data") +
                        R"(,"mimeType":"application/json","text":)" + slipstream::json_quote(text) + "}]}");
    };
    s.resource_template(std::move(t));
}

void add_prompts(mcp::Server& s) {
    auto user_text = [](const std::string& text) {
        return R"({"role":"user","content":{"type":"text","text":)" + slipstream::json_quote(text) + "}}";
    };
    mcp::Prompt simple;
    simple.name = "test_simple_prompt";
    simple.description = "A simple prompt without arguments";
    simple.handler = [user_text](mcp::Call call) {
        call.reply_json(R"({"messages":[)" + user_text("This is a simple prompt for testing.") + "]}");
    };
    s.prompt(std::move(simple));
    mcp::Prompt with_args;
    with_args.name = "test_prompt_with_arguments";
    with_args.description = "A prompt with two arguments";
    with_args.arguments = {{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}};
    with_args.handler = [user_text](mcp::Call call) {
        const std::string text = "Prompt with arguments: arg1='" +
                                 std::string(call.arguments().get("arg1").as_string()) + "', arg2='" +
                                 std::string(call.arguments().get("arg2").as_string()) + "'";
        call.reply_json(R"({"messages":[)" + user_text(text) + "]}");
    };
    s.prompt(std::move(with_args));
    mcp::Prompt embedded;
    embedded.name = "test_prompt_with_embedded_resource";
    embedded.description = "A prompt embedding a resource";
    embedded.arguments = {{"resourceUri", "URI of the resource to embed", true}};
    embedded.handler = [user_text](mcp::Call call) {
        const std::string uri(call.arguments().get("resourceUri").as_string());
        call.reply_json(R"({"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":)" +
                        slipstream::json_quote(uri) +
                        R"(,"mimeType":"text/plain","text":"Embedded resource content for testing."}}},)" +
                        user_text("Please process the embedded resource above.") + "]}");
    };
    s.prompt(std::move(embedded));
    mcp::Prompt image;
    image.name = "test_prompt_with_image";
    image.description = "A prompt with an image";
    image.handler = [user_text](mcp::Call call) {
        call.reply_json(R"({"messages":[{"role":"user","content":)" + image_block() + "}," +
                        user_text("Please analyze the image above.") + "]}");
    };
    s.prompt(std::move(image));
    s.completion([](std::string_view, mcp::Call call) {
        call.reply_json(R"({"completion":{"values":["paris","park","party"],"total":3,"hasMore":false}})");
    });
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    mcp::ServerConfig config;
    config.name = "slipstream-conformance";
    config.resumable_streams = true;  // server-sse-polling: test_reconnection ends its stream's connection
    config.stream_retry_ms = 500;
    mcp::Server server(config);
    add_tools(server);
    add_resources(server);
    add_prompts(server);
    mcp_conformance::add_input_required_tools(server);
    mcp_conformance::add_stateless_tools(server);
    return slipstream::app::serve_main(
        argc, argv, envp, "mcp_conformance_server",
        [&server](slipstream::App& app, const slipstream::app::Config&) { server.mount(app, "/mcp"); });
}
