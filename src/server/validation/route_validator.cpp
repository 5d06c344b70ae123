// RouteValidator::compile() and the compiled validator: parameters and body, coerced and checked in C++.
#include "server/validation/route_validator.h"

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "http/h1/header.h"
#include "json/parse.h"
#include "json/schema/coerce.h"
#include "json/schema/error_sink.h"
#include "json/schema/schema.h"
#include "server/core/request_state.h"
#include "server/validation/error_body.h"
#include "server/validation/lax_plan.h"
#include "server/validation/raw_params.h"
#include "server/validation/schema_shape.h"

namespace slipstream::server {
namespace {

using json::schema::ErrorSink;
using json::schema::Schema;
using server::detail::ErrorBody;
using server::detail::ErrorRewrite;
using server::detail::LaxFailure;
using server::detail::LaxPlan;
using server::detail::RawPair;

struct CompiledParam {
    std::string name;  // key in the arguments object
    std::string wire;  // query key, header name (compared case-insensitively) or cookie name
    ParamSource source = ParamSource::kQuery;
    Schema schema;
    bool required = true;
    bool is_list = false;           // every occurrence, as an array (query and header only)
    json::Value default_value;      // used when absent and not required; lives in the validator's arena
    std::unique_ptr<LaxPlan> plan;  // here only for its Literal marks (coerce() parses the text)
};

struct CompiledBody {
    std::string name;
    Schema schema;
    bool required = true;
    json::Value default_value;
    std::unique_ptr<LaxPlan> plan;  // pydantic's lax conversions of JSON values
};

std::string_view source_name(ParamSource s) {
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

// FastAPI's JSON detection: application/json or application/<x>+json (parameters ignored, any case).
bool is_json_content_type(std::string_view ct) {
    std::size_t semi = ct.find(';');
    std::string_view type = ct.substr(0, semi);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
        type.remove_suffix(1);
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t'))
        type.remove_prefix(1);
    std::size_t slash = type.find('/');
    if (slash == std::string_view::npos) return false;
    if (!http::h1::iequals(type.substr(0, slash), "application")) return false;
    std::string_view sub = type.substr(slash + 1);
    if (http::h1::iequals(sub, "json")) return true;
    return sub.size() >= 5 && http::h1::iequals(sub.substr(sub.size() - 5), "+json");
}

class CompiledRouteValidator final : public RouteValidator {
  public:
    explicit CompiledRouteValidator(const RouteSpec& spec);
    bool validate(slipstream::detail::RequestState& request, std::string* error_body) const override;
    std::size_t max_body_bytes() const override { return max_body_bytes_; }

  private:
    // Raw occurrences of one parameter, as UTF-8 text in the request's arena.
    void collect(const CompiledParam& p, slipstream::detail::RequestState& request, std::span<const RawPair> query,
                 const std::vector<RawPair>& cookies, std::vector<std::string_view>& raw) const;
    bool validate_params(slipstream::detail::RequestState& request, json::Member* out, ErrorBody& errors) const;
    bool validate_body(slipstream::detail::RequestState& request, json::Member* out, ErrorBody& errors,
                       std::string* error_body, bool* body_error_final) const;
    // The outcome of a failed request: false (answered by the server), or with forward_errors_ true and the error
    // text handed to the handler as the only argument.
    bool forward(slipstream::detail::RequestState& request, std::string_view text) const;

    base::Arena arena_{1024};  // defaults
    std::vector<CompiledParam> params_;
    std::vector<CompiledBody> body_;
    bool embed_ = false;
    bool forward_errors_ = false;
    bool json_without_content_type_ = false;
    std::size_t max_body_bytes_ = SIZE_MAX;
    bool needs_query_ = false;
    bool needs_cookies_ = false;
};

json::Value parse_default(const std::string& text, base::Arena& arena, const std::string& what) {
    if (text.empty()) return json::Value::null();
    json::ParseError err;
    auto parsed = json::parse(text, arena, {}, &err);
    if (!parsed.is_ok()) throw std::invalid_argument(what + ": default_json is not valid JSON: " + err.message);
    return **parsed;
}

Schema compile_schema(const std::string& text, const std::string& what, json::Value* parsed_out, base::Arena& arena) {
    json::ParseError err;
    auto parsed = json::parse(text.empty() ? std::string_view("true") : std::string_view(text), arena, {}, &err);
    if (!parsed.is_ok()) throw std::invalid_argument(what + ": schema_json is not valid JSON: " + err.message);
    *parsed_out = **parsed;
    try {
        // Formats stay annotations: RFC 3339 / RFC 4122 are stricter than pydantic (naive datetimes, UUIDs without
        // hyphens), so the handler's pydantic conversion judges them. Integral floats are ints only within int64.
        json::schema::CompileOptions options;
        options.pydantic_int_from_float = true;
        return json::schema::compile(**parsed, options);
    } catch (const json::schema::SchemaError& e) {
        throw std::invalid_argument(what + ": " + e.what());
    }
}

CompiledRouteValidator::CompiledRouteValidator(const RouteSpec& spec) {
    base::Arena scratch;
    for (const ParamSpec& ps : spec.params) {
        std::string what = std::string(source_name(ps.source)) + " parameter '" + ps.name + "'";
        if (ps.name.empty()) throw std::invalid_argument(what + ": empty name");
        for (const CompiledParam& seen : params_)
            if (seen.name == ps.name) throw std::invalid_argument(what + ": duplicate name");
        CompiledParam p;
        p.name = ps.name;
        p.source = ps.source;
        p.wire = ps.alias.empty() ? ps.name : ps.alias;
        // FastAPI's Header(convert_underscores=True): "x_token" is sent as "x-token".
        if (ps.source == ParamSource::kHeader && ps.alias.empty())
            for (char& c : p.wire)
                if (c == '_') c = '-';
        json::Value schema_doc;
        p.schema = compile_schema(ps.schema_json, what, &schema_doc, scratch);
        p.is_list = detail::coerces_to_list(schema_doc);
        p.plan = std::make_unique<LaxPlan>(schema_doc);
        if (p.is_list && (ps.source == ParamSource::kPath || ps.source == ParamSource::kCookie))
            throw std::invalid_argument(what + ": a list is not supported for this source");
        p.required = ps.source == ParamSource::kPath || ps.required;
        p.default_value = parse_default(ps.default_json, arena_, what);
        needs_query_ = needs_query_ || ps.source == ParamSource::kQuery;
        needs_cookies_ = needs_cookies_ || ps.source == ParamSource::kCookie;
        params_.push_back(std::move(p));
    }
    for (const BodySpec& bs : spec.body) {
        std::string what = "body '" + bs.name + "'";
        if (bs.name.empty()) throw std::invalid_argument(what + ": empty name");
        for (const CompiledParam& seen : params_)
            if (seen.name == bs.name) throw std::invalid_argument(what + ": name already used by a parameter");
        for (const CompiledBody& seen : body_)
            if (seen.name == bs.name) throw std::invalid_argument(what + ": duplicate name");
        CompiledBody b;
        b.name = bs.name;
        json::Value schema_doc;
        b.schema = compile_schema(bs.schema_json, what, &schema_doc, scratch);
        b.plan = std::make_unique<LaxPlan>(schema_doc);
        b.required = bs.required;
        b.default_value = parse_default(bs.default_json, arena_, what);
        embed_ = embed_ || bs.embed;
        body_.push_back(std::move(b));
    }
    embed_ = embed_ || body_.size() > 1;
    forward_errors_ = spec.forward_errors;
    json_without_content_type_ = spec.json_without_content_type;
    max_body_bytes_ = spec.max_body_bytes.value_or(SIZE_MAX);
}

void CompiledRouteValidator::collect(const CompiledParam& p, slipstream::detail::RequestState& request,
                                     std::span<const RawPair> query, const std::vector<RawPair>& cookies,
                                     std::vector<std::string_view>& raw) const {
    raw.clear();
    switch (p.source) {
        case ParamSource::kPath:
            if (const RouteParam* rp = request.match.find(p.wire); rp != nullptr)
                raw.push_back(detail::to_valid_utf8(rp->value, *request.arena));
            break;
        case ParamSource::kQuery:
            for (const RawPair& q : query)
                if (q.key == p.wire) raw.push_back(q.value);
            break;
        case ParamSource::kHeader:
            for (const http::h1::Header& h : request.headers) {
                if (!http::h1::iequals(h.name, p.wire)) continue;
                raw.push_back(detail::header_text(h.value, *request.arena));
                if (!p.is_list) break;  // Starlette's Headers.get(): the first one
            }
            break;
        case ParamSource::kCookie:
            for (auto it = cookies.rbegin(); it != cookies.rend(); ++it) {  // a dict: the last one wins
                if (it->key == p.wire) {
                    raw.push_back(it->value);
                    break;
                }
            }
            break;
    }
}

bool CompiledRouteValidator::validate_params(slipstream::detail::RequestState& request, json::Member* out,
                                             ErrorBody& errors) const {
    base::Arena& arena = *request.arena;
    std::span<const RawPair> query;
    if (needs_query_) query = detail::split_query(request.query, arena);
    std::vector<RawPair> cookies;
    if (needs_cookies_)
        for (const http::h1::Header& h : request.headers)
            if (http::h1::iequals(h.name, "cookie")) {
                detail::split_cookies(h.value, arena, cookies);
                break;  // Starlette reads the first Cookie header only
            }
    std::vector<std::string_view> raw;
    ErrorSink sink;
    bool ok = true;
    // FastAPI reports path, then query, then header, then cookie errors.
    for (ParamSource source : {ParamSource::kPath, ParamSource::kQuery, ParamSource::kHeader, ParamSource::kCookie}) {
        for (std::size_t i = 0; i < params_.size(); ++i) {
            const CompiledParam& p = params_[i];
            if (p.source != source) continue;
            out[i].key = p.name;
            collect(p, request, query, cookies, raw);
            if (raw.empty()) {
                if (p.required) {
                    errors.add_missing({{source_name(source)}, {p.wire}});
                    ok = false;
                }
                out[i].value = p.default_value;
                continue;
            }
            sink.clear();
            auto value = json::schema::coerce(p.schema, raw, arena, &sink);
            if (value.is_ok()) {
                out[i].value = *value;
                continue;
            }
            ok = false;
            // "x" for an IntEnum: pydantic says "enum" (the value is not a member), not int_parsing.
            ErrorSink enum_errors;
            bool as_enum =
                !p.is_list && p.plan->is_enum() && !p.schema.validate(json::Value::string(raw.back()), &enum_errors);
            ErrorRewrite rewrite{p.plan.get(), nullptr, {}};
            errors.add_all(as_enum ? enum_errors : sink, {{source_name(source)}, {p.wire}}, raw, p.is_list, &rewrite);
        }
    }
    return ok;
}

bool CompiledRouteValidator::validate_body(slipstream::detail::RequestState& request, json::Member* out,
                                           ErrorBody& errors, std::string* error_body, bool* body_error_final) const {
    base::Arena& arena = *request.arena;
    // Read the body as FastAPI does: JSON when the content type says so, else the text itself.
    json::Value whole;
    bool present = !request.body.empty();
    bool is_json = false;
    if (present) {
        std::string_view ct = http::h1::find_header(request.headers, "content-type");
        if (is_json_content_type(ct) || (ct.empty() && json_without_content_type_)) {
            json::ParseError perr;
            json::ParseOptions options;
            options.max_depth = kMaxBodyDepth;
            auto parsed = json::parse(request.body, arena, options, &perr);
            if (!parsed.is_ok()) {
                // A decode error is the only error reported, before any parameter is looked at.
                *body_error_final = true;
                if (perr.kind == json::ParseErrorKind::kEncoding || perr.kind == json::ParseErrorKind::kLimit) {
                    error_body->assign(kBodyParseErrorBody);  // Python could not read it at all: FastAPI's 400
                    return false;
                }
                error_body->clear();
                ErrorBody only(*error_body);
                only.add_json_invalid(perr.char_offset, perr.message);
                only.finish();
                return false;
            }
            whole = **parsed;
            is_json = true;
        } else {
            whole = json::Value::string(detail::to_valid_utf8(request.body, arena));
        }
    }
    std::size_t base = params_.size();
    ErrorSink sink;
    bool ok = true;
    for (std::size_t i = 0; i < body_.size(); ++i) {
        const CompiledBody& b = body_[i];
        out[base + i].key = b.name;
        const json::Value* value = nullptr;
        if (!embed_) {
            if (present) value = &whole;
        } else if (present && is_json) {
            if (!whole.is_object()) {  // FastAPI: embedded fields need an object, else each is missing
                errors.add_missing({{"body"}, {b.name}});
                ok = false;
                continue;
            }
            value = whole.find(b.name);
        }
        if (value == nullptr) {
            if (b.required) {
                if (embed_)
                    errors.add_missing({{"body"}, {b.name}});
                else
                    errors.add_missing({{"body"}});
                ok = false;
            }
            out[base + i].value = b.default_value;
            continue;
        }
        if (b.schema.validate(*value)) {  // the common case: valid as sent, no sink, no allocation
            out[base + i].value = *value;
            continue;
        }
        // FastAPI validates the parsed body in pydantic's lax mode: convert what it would, then judge that.
        json::Value converted;
        std::vector<LaxFailure> failures;
        bool lax = b.plan->convert(*value, arena, &converted, &failures);
        sink.clear();
        if (b.schema.validate(lax ? converted : *value, &sink)) {
            out[base + i].value = converted;
            continue;
        }
        ok = false;
        ErrorRewrite rewrite{b.plan.get(), lax ? value : nullptr, failures, value};
        if (embed_)
            errors.add_all(sink, {{"body"}, {b.name}}, {}, false, &rewrite);
        else
            errors.add_all(sink, {{"body"}}, {}, false, &rewrite);
    }
    return ok;
}

bool CompiledRouteValidator::validate(slipstream::detail::RequestState& request, std::string* error_body) const {
    if (!request.arena) request.arena = std::make_unique<base::Arena>();
    base::Arena& arena = *request.arena;
    const std::size_t n = params_.size() + body_.size();
    json::Member* members = arena.make_array<json::Member>(n);
    std::string scratch;
    std::string& text = error_body != nullptr && !forward_errors_ ? *error_body : scratch;
    text.clear();
    ErrorBody errors(text);
    bool ok = validate_params(request, members, errors);
    if (!body_.empty()) {
        bool final_error = false;
        std::string params_text;
        if (!validate_body(request, members, errors, &params_text, &final_error)) {
            ok = false;
            if (final_error) {
                text = std::move(params_text);
                return forward(request, text);
            }
        }
    }
    if (!ok) {
        errors.finish();
        return forward(request, text);
    }
    text.clear();
    auto* args = arena.make<json::Value>(json::Value::object(members, static_cast<std::uint32_t>(n)));
    request.arguments = args;
    return true;
}

bool CompiledRouteValidator::forward(slipstream::detail::RequestState& request, std::string_view text) const {
    if (!forward_errors_) return false;
    base::Arena& arena = *request.arena;
    json::Member* member = arena.make_array<json::Member>(1);
    member->key = kForwardedErrorsKey;
    member->value = json::Value::string(arena.copy(text));
    request.arguments = arena.make<json::Value>(json::Value::object(member, 1));
    return true;
}

}  // namespace

std::unique_ptr<RouteValidator> RouteValidator::compile(const RouteSpec& spec) {
    return std::make_unique<CompiledRouteValidator>(spec);
}

}  // namespace slipstream::server
