// OpenAPI 3.1 text of a service's routes: parameters and bodies from their RouteSpecs.
#include "agent/sessions/route_openapi.h"

#include <map>

#include "json/writer.h"

namespace slipstream::agent::sessions {

namespace {

const char* source_name(ParamSource s) {
    switch (s) {
        case ParamSource::kPath:
            return "path";
        case ParamSource::kQuery:
            return "query";
        case ParamSource::kHeader:
            return "header";
        case ParamSource::kCookie:
            return "cookie";
    }
    return "query";
}

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

void content(json::Writer& w, const std::vector<std::string>& media, const std::string& schema) {
    w.key("content");
    w.begin_object();
    for (const std::string& m : media) {
        w.key(m);
        w.begin_object();
        w.key("schema");
        w.raw(schema.empty() ? std::string(R"({"type":"object"})") : schema);
        w.end_object();
    }
    w.end_object();
}

void parameters(json::Writer& w, const RouteSpec& route) {
    if (route.params.empty()) return;
    w.key("parameters");
    w.begin_array();
    for (const ParamSpec& p : route.params) {
        w.begin_object();
        w.key("name");
        w.string(p.alias.empty() ? p.name : p.alias);
        w.key("in");
        w.string(source_name(p.source));
        w.key("required");
        w.boolean(p.source == ParamSource::kPath || p.required);
        w.key("schema");
        if (!p.required && !p.default_json.empty() && p.default_json != "null" && p.schema_json.size() > 1 &&
            p.schema_json.front() == '{' && p.schema_json.back() == '}') {
            // The schema with the default the server uses when the parameter is absent.
            w.raw(p.schema_json.substr(0, p.schema_json.size() - 1) + R"(,"default":)" + p.default_json + "}");
        } else {
            w.raw(p.schema_json);
        }
        w.end_object();
    }
    w.end_array();
}

void operation(json::Writer& w, const OperationDoc& op, std::string_view tag) {
    w.begin_object();
    w.key("summary");
    w.string(op.summary);
    w.key("operationId");
    std::string id = lower(op.method);
    for (char c : op.path)
        id += (c == '/' || c == '{' || c == '}' || c == '-' || c == '.') ? '_' : c;
    w.string(id);
    w.key("tags");
    w.begin_array();
    w.string(tag);
    w.end_array();
    parameters(w, op.route);
    if (!op.route.body.empty()) {
        const BodySpec& b = op.route.body.front();
        w.key("requestBody");
        w.begin_object();
        w.key("required");
        w.boolean(b.required);
        content(w, op.request_media, !op.body_doc_schema.empty() ? op.body_doc_schema : b.schema_json);
        w.end_object();
    }
    w.key("responses");
    w.begin_object();
    const int ok = op.no_content ? 204 : op.created ? 201 : 200;
    w.key(std::to_string(ok));
    w.begin_object();
    w.key("description");
    w.string(status_reason(ok));
    if (!op.no_content) content(w, op.response_media, op.response_schema);
    w.end_object();
    if (op.created) {
        w.key("200");
        w.begin_object();
        w.key("description");
        w.string(status_reason(200));
        content(w, {"application/json"}, op.response_schema);
        w.end_object();
    }
    if (op.not_modified) {
        w.key("304");
        w.begin_object();
        w.key("description");
        w.string(status_reason(304));
        w.end_object();
    }
    std::vector<int> problems = op.problems;
    problems.push_back(422);
    problems.push_back(503);
    std::map<int, bool> seen;
    for (int status : problems) {
        if (seen[status]) continue;
        seen[status] = true;
        w.key(std::to_string(status));
        w.begin_object();
        w.key("description");
        w.string(status_reason(status));
        content(w, {"application/problem+json"}, R"({"$ref":"#/components/schemas/Problem"})");
        w.end_object();
    }
    w.end_object();
    w.end_object();
}

}  // namespace

std::string_view status_reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 204:
            return "No Content";
        case 304:
            return "Not Modified";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 409:
            return "Conflict";
        case 412:
            return "Precondition Failed";
        case 413:
            return "Content Too Large";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Content";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
    }
    return "Internal Server Error";
}

std::string openapi_paths(const std::vector<OperationDoc>& ops, std::string_view tag) {
    std::map<std::string, std::vector<const OperationDoc*>> by_path;
    for (const OperationDoc& op : ops)
        by_path[op.path].push_back(&op);
    std::string out;
    json::Writer w(out);
    w.begin_object();
    for (const auto& [path, list] : by_path) {
        w.key(path);
        w.begin_object();
        for (const OperationDoc* op : list) {
            w.key(lower(op->method));
            operation(w, *op, tag);
        }
        w.end_object();
    }
    w.end_object();
    return out;
}

std::string openapi_components() {
    return R"({"schemas":{"Problem":{"type":"object","description":"RFC 9457 problem details",)"
           R"("properties":{"type":{"type":"string"},"title":{"type":"string"},"status":{"type":"integer"},)"
           R"("detail":{"type":"string"},"pointer":{"type":"string","description":"the JSON pointer of the field at )"
           R"(fault"}},"required":["title","status"]}}})";
}

std::string openapi_document(const std::vector<OperationDoc>& ops, std::string_view title, std::string_view version,
                             std::string_view tag) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("openapi");
    w.string("3.1.0");
    w.key("info");
    w.begin_object();
    w.key("title");
    w.string(title);
    w.key("version");
    w.string(version);
    w.end_object();
    w.key("paths");
    w.raw(openapi_paths(ops, tag));
    w.key("components");
    w.raw(openapi_components());
    w.end_object();
    return out;
}

}  // namespace slipstream::agent::sessions
