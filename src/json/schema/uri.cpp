// RFC 3986 reference resolution (section 5.2) for $id and $ref.
#include "json/schema/uri.h"

#include "json/schema/str_cat.h"

namespace slipstream::json::schema::detail {
namespace {

struct UriParts {
    std::string_view scheme;
    std::string_view authority;
    std::string_view path;
    std::string_view query;
    std::string_view fragment;
    bool has_scheme = false;
    bool has_authority = false;
    bool has_query = false;
    bool has_fragment = false;
};

UriParts parse(std::string_view s) {
    UriParts p;
    if (auto hash = s.find('#'); hash != std::string_view::npos) {
        p.fragment = s.substr(hash + 1);
        p.has_fragment = true;
        s = s.substr(0, hash);
    }
    if (auto q = s.find('?'); q != std::string_view::npos) {
        p.query = s.substr(q + 1);
        p.has_query = true;
        s = s.substr(0, q);
    }
    // A scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ':' before any '/'.
    auto colon = s.find(':');
    if (colon != std::string_view::npos && colon > 0 && s.substr(0, colon).find('/') == std::string_view::npos) {
        bool ok = (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z');
        for (std::size_t i = 1; ok && i < colon; ++i) {
            char c = s[i];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
                 c == '.';
        }
        if (ok) {
            p.scheme = s.substr(0, colon);
            p.has_scheme = true;
            s = s.substr(colon + 1);
        }
    }
    if (s.substr(0, 2) == "//") {
        s = s.substr(2);
        auto slash = s.find('/');
        p.authority = s.substr(0, slash);
        p.has_authority = true;
        s = slash == std::string_view::npos ? std::string_view() : s.substr(slash);
    }
    p.path = s;
    return p;
}

std::string remove_dot_segments(std::string_view in) {
    std::string out;
    while (!in.empty()) {
        if (in.substr(0, 3) == "../") {
            in.remove_prefix(3);
        } else if (in.substr(0, 2) == "./") {
            in.remove_prefix(2);
        } else if (in.substr(0, 3) == "/./") {
            in.remove_prefix(2);
        } else if (in == "/.") {
            in = "/";
        } else if (in.substr(0, 4) == "/../" || in == "/..") {
            in = in.size() == 3 ? std::string_view("/") : in.substr(3);
            auto last = out.rfind('/');
            out.erase(last == std::string::npos ? 0 : last);
        } else if (in == "." || in == "..") {
            in = {};
        } else {
            std::size_t start = in[0] == '/' ? 1 : 0;
            auto next = in.find('/', start);
            if (next == std::string_view::npos) next = in.size();
            out.append(in.substr(0, next));
            in.remove_prefix(next);
        }
    }
    return out;
}

std::string merge(const UriParts& base, std::string_view ref_path) {
    if (base.has_authority && base.path.empty()) return cat("/", ref_path);
    auto last = base.path.rfind('/');
    if (last == std::string_view::npos) return std::string(ref_path);
    return std::string(base.path.substr(0, last + 1)) + std::string(ref_path);
}

std::string recompose(std::string_view scheme, bool has_scheme, std::string_view authority, bool has_authority,
                      std::string_view path, std::string_view query, bool has_query, std::string_view fragment,
                      bool has_fragment) {
    std::string out;
    if (has_scheme) {
        out.append(scheme);
        out.push_back(':');
    }
    if (has_authority) {
        out.append("//");
        out.append(authority);
    }
    out.append(path);
    if (has_query) {
        out.push_back('?');
        out.append(query);
    }
    if (has_fragment) {
        out.push_back('#');
        out.append(fragment);
    }
    return out;
}

}  // namespace

std::string resolve_uri(std::string_view base, std::string_view ref) {
    if (base.empty()) return std::string(ref);
    UriParts r = parse(ref);
    UriParts b = parse(base);
    std::string path;
    std::string_view scheme = b.scheme, authority = b.authority, query = r.query;
    bool has_authority = b.has_authority, has_query = r.has_query;
    if (r.has_scheme) {
        scheme = r.scheme;
        authority = r.authority;
        has_authority = r.has_authority;
        path = remove_dot_segments(r.path);
    } else if (r.has_authority) {
        authority = r.authority;
        has_authority = true;
        path = remove_dot_segments(r.path);
    } else if (r.path.empty()) {
        path = std::string(b.path);
        if (!r.has_query) {
            query = b.query;
            has_query = b.has_query;
        }
    } else if (r.path[0] == '/') {
        path = remove_dot_segments(r.path);
    } else {
        path = remove_dot_segments(merge(b, r.path));
    }
    return recompose(scheme, b.has_scheme || r.has_scheme, authority, has_authority, path, query, has_query, r.fragment,
                     r.has_fragment);
}

std::pair<std::string_view, std::string_view> split_fragment(std::string_view uri) {
    auto hash = uri.find('#');
    if (hash == std::string_view::npos) return {uri, {}};
    return {uri.substr(0, hash), uri.substr(hash + 1)};
}

std::string percent_decode(std::string_view s) {
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

}  // namespace slipstream::json::schema::detail
