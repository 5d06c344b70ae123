// CorsPolicy: origin matching, preflight answers and the fields of actual responses.
#include "policy/cors/cors_policy.h"

#include <re2/re2.h>

#include <algorithm>
#include <stdexcept>

#include "http/h1/header.h"

namespace slipstream::policy::cors {
namespace {

namespace h1 = http::h1;

// The CORS-safelisted request headers a preflight may always name (the Fetch standard's list, as Starlette's).
constexpr const char* kSafelisted[] = {"Accept", "Accept-Language", "Content-Language", "Content-Type"};
// A preflight's answer depends on all of these request fields.
constexpr std::string_view kPreflightVary =
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network";
constexpr std::string_view kAllowOrigin = "Access-Control-Allow-Origin";

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) {
        if (!out.empty()) out += ", ";
        out += item;
    }
    return out;
}

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

void sort_unique(std::vector<std::string>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Whitespace as a requested header name is trimmed of: Python's str.strip() over a latin-1 field value
// (ASCII whitespace, the separators 0x1c..0x1f, NEL and NBSP).
bool strip_byte(char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0;
}

std::string_view strip(std::string_view s) {
    while (!s.empty() && strip_byte(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && strip_byte(s.back()))
        s.remove_suffix(1);
    return s;
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// Sets a field as one line: the first field of that name (any case) takes the value, the others go.
void set_field(Fields& fields, std::string_view name, std::string value) {
    auto first = fields.end();
    for (auto it = fields.begin(); it != fields.end();) {
        if (!h1::iequals(it->first, name)) {
            ++it;
        } else if (first == fields.end()) {
            first = it++;
        } else {
            it = fields.erase(it);
        }
    }
    if (first == fields.end()) {
        fields.emplace_back(std::string(name), std::move(value));
    } else {
        first->first.assign(name);
        first->second = std::move(value);
    }
}

// The response's Vary fields joined into one, with "Origin" last (appended even when already listed).
void append_vary_origin(Fields& fields) {
    std::string vary;
    for (const auto& [name, value] : fields) {
        if (name.size() != 4 || !h1::iequals(name, "vary")) continue;
        vary += value;
        vary += ", ";
    }
    vary += "Origin";
    set_field(fields, "Vary", std::move(vary));
}

}  // namespace

std::unique_ptr<const CorsPolicy> CorsPolicy::compile(const ServerOptions& options) {
    if (!cors_enabled(options)) return nullptr;
    return std::make_unique<const CorsPolicy>(parse_cors_config(options));
}

CorsPolicy::CorsPolicy(CorsConfig c)
    : origins_(std::move(c.allow_origins)),
      methods_(std::move(c.allow_methods)),
      allow_credentials_(c.allow_credentials),
      allow_private_network_(c.allow_private_network) {
    if (!c.allow_origin_regex.empty()) {
        RE2::Options options;
        options.set_log_errors(false);
        regex_ = std::make_unique<RE2>(c.allow_origin_regex, options);
        if (!regex_->ok())
            throw std::invalid_argument("cors_allow_origin_regex: '" + c.allow_origin_regex +
                                        "' is not a valid RE2 pattern: " + regex_->error());
    }
    allow_all_origins_ = std::find(origins_.begin(), origins_.end(), "*") != origins_.end();
    allow_all_headers_ = std::find(c.allow_headers.begin(), c.allow_headers.end(), "*") != c.allow_headers.end();
    preflight_echoes_origin_ = !allow_all_origins_ || allow_credentials_;
    sort_unique(origins_);

    std::vector<std::string> headers(c.allow_headers);
    headers.insert(headers.end(), std::begin(kSafelisted), std::end(kSafelisted));
    sort_unique(headers);  // by byte value, as Python sorts str
    for (const std::string& h : headers)
        allowed_headers_.push_back(lowercase(h));
    sort_unique(allowed_headers_);

    if (allow_all_origins_) simple_fields_.emplace_back(kAllowOrigin, "*");
    if (allow_credentials_) simple_fields_.emplace_back("Access-Control-Allow-Credentials", "true");
    if (!c.expose_headers.empty()) simple_fields_.emplace_back("Access-Control-Expose-Headers", join(c.expose_headers));

    preflight_fields_.emplace_back("Vary", kPreflightVary);
    if (!preflight_echoes_origin_) preflight_fields_.emplace_back(kAllowOrigin, "*");
    preflight_fields_.emplace_back("Access-Control-Allow-Methods", join(methods_));
    preflight_fields_.emplace_back("Access-Control-Max-Age", std::to_string(c.max_age));
    if (!allow_all_headers_) preflight_fields_.emplace_back("Access-Control-Allow-Headers", join(headers));
    if (allow_credentials_) preflight_fields_.emplace_back("Access-Control-Allow-Credentials", "true");
}

CorsPolicy::~CorsPolicy() = default;

bool CorsPolicy::allows_origin(std::string_view origin) const {
    if (allow_all_origins_) return true;
    if (regex_ && RE2::FullMatch(origin, *regex_)) return true;
    return std::binary_search(origins_.begin(), origins_.end(), origin);
}

bool CorsPolicy::header_allowed(std::string_view lowercase_name) const {
    return std::binary_search(allowed_headers_.begin(), allowed_headers_.end(), lowercase_name);
}

Response CorsPolicy::preflight(const CorsRequest& request) const {
    Response r;
    r.headers = preflight_fields_;
    std::string failures;
    auto refuse = [&](std::string_view what) {
        failures += failures.empty() ? "Disallowed CORS " : ", ";
        failures += what;
    };
    const std::string_view origin = request.origin.value_or(std::string_view());
    if (!allows_origin(origin)) {
        refuse("origin");
    } else if (preflight_echoes_origin_) {
        set_field(r.headers, kAllowOrigin, std::string(origin));
    }
    const std::string_view method = request.request_method.value_or(std::string_view());
    if (std::find(methods_.begin(), methods_.end(), method) == methods_.end()) refuse("method");
    if (request.request_headers) {
        if (allow_all_headers_) {
            // Any header is allowed: the answer names exactly those asked for.
            set_field(r.headers, "Access-Control-Allow-Headers", std::string(*request.request_headers));
        } else {
            std::string_view list = *request.request_headers;
            while (true) {
                std::size_t cut = list.find(',');
                if (!header_allowed(lowercase(strip(list.substr(0, cut))))) {
                    refuse("headers");
                    break;
                }
                if (cut == std::string_view::npos) break;
                list.remove_prefix(cut + 1);
            }
        }
    }
    if (request.request_private_network) {
        if (allow_private_network_) {
            set_field(r.headers, "Access-Control-Allow-Private-Network", "true");
        } else {
            refuse("private-network");
        }
    }
    r.content_type = ContentType::constant("text/plain; charset=utf-8");
    if (failures.empty()) {
        r.static_body = "OK";
    } else {
        r.status = 400;
        r.body = std::move(failures);
    }
    return r;
}

void CorsPolicy::apply(const CorsRequest& request, Response& response) const {
    if (request.origin) {
        for (const auto& [name, value] : simple_fields_)
            set_field(response.headers, name, value);
        // With credentials a browser refuses "*": the origin itself is named, as for a listed origin.
        const bool echo = allow_all_origins_ ? allow_credentials_ : allows_origin(*request.origin);
        if (echo) set_field(response.headers, kAllowOrigin, std::string(*request.origin));
    }
    append_vary_origin(response.headers);
}

}  // namespace slipstream::policy::cors
