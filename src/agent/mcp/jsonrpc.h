// JSON-RPC 2.0 messages of MCP: parse and classify one message or a batch, and write answers and notifications.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "json/parse.h"
#include "json/value.h"

namespace slipstream::mcp::detail {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;  // MCP's code for resources/read of an unknown URI
inline constexpr int kServerBusy = -32000;
// The codes 2026-07-28 reserves (-32020 to -32099 are the specification's).
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

/// A parsed document: the text's tree lives in `arena` as long as the document.
struct Document {
    base::Arena arena{4096};
    const json::Value* root = nullptr;
};

enum class MessageKind : unsigned char { kRequest, kNotification, kResponse, kInvalid };

/// One classified message of a document. Views point into the Document.
struct Message {
    MessageKind kind = MessageKind::kInvalid;
    std::string id_json = "null";  // the id as JSON text (echoed in the answer); "null" when absent or unusable
    std::string_view method;
    const json::Value* params = nullptr;       // an object, or nullptr when absent
    const json::Value* result = nullptr;       // a response's result, or nullptr
    const json::Value* error_value = nullptr;  // a response's error, or nullptr
    std::string error;                         // why kind is kInvalid
};

/// What parse_messages() found: a single message, a batch, or a document-level error.
struct Incoming {
    std::shared_ptr<Document> document;
    std::vector<Message> messages;
    bool batch = false;
    int error_code = 0;  // kParseError or kInvalidRequest for the whole document (then `messages` is empty)
    std::string error;
};

/// Parses `text` with `limits` and classifies each message (a JSON array is a batch; an empty one is an error).
Incoming parse_messages(std::string_view text, const json::ParseOptions& limits);
/// Classifies one message value.
Message classify(const json::Value& value);

/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}`.
std::string result_message(std::string_view id_json, std::string_view result_json);
/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":..,"data"?:..}}`.
std::string error_message(std::string_view id_json, int code, std::string_view message,
                          std::string_view data_json = {});
/// `{"jsonrpc":"2.0","method":..,"params":..}` (params omitted when empty).
std::string notification_message(std::string_view method, std::string_view params_json = {});

/// Compact JSON text of a value (a parsed tree never holds a non-finite double, so this cannot fail).
std::string to_json(const json::Value& value);
/// A JSON string literal of `text`.
std::string quote(std::string_view text);

}  // namespace slipstream::mcp::detail
