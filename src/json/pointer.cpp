// Pointer: RFC 6901 formatting, parsing and resolution.
#include "json/pointer.h"

#include <charconv>
#include <system_error>

namespace slipstream::json {

void append_pointer_token(std::string& out, std::string_view token) {
    std::size_t run = 0;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '~' && token[i] != '/') continue;
        out.append(token.substr(run, i - run));
        out.append(token[i] == '~' ? "~0" : "~1");
        run = i + 1;
    }
    out.append(token.substr(run));
}

void Pointer::append_to(std::string& out) const {
    for (const PointerSegment& s : segments_) {
        out.push_back('/');
        if (s.is_index) {
            char buf[24];
            out.append(buf, std::to_chars(buf, buf + sizeof buf, s.index).ptr);
        } else {
            append_pointer_token(out, s.key);
        }
    }
}

std::string Pointer::to_string() const {
    std::string out;
    append_to(out);
    return out;
}

base::Result<std::vector<std::string>> parse_pointer(std::string_view text) {
    std::vector<std::string> tokens;
    if (text.empty()) return tokens;
    if (text[0] != '/') return base::Status::invalid_argument("JSON pointer must start with '/'");
    std::string token;
    for (std::size_t i = 1; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '/') {
            tokens.push_back(std::move(token));
            token.clear();
        } else if (text[i] == '~') {
            if (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1')) {
                return base::Status::invalid_argument("JSON pointer has '~' not followed by '0' or '1' at " +
                                                      std::to_string(i));
            }
            token.push_back(text[++i] == '0' ? '~' : '/');
        } else {
            token.push_back(text[i]);
        }
    }
    return tokens;
}

const Value* resolve_pointer(const Value& root, std::string_view pointer) {
    base::Result<std::vector<std::string>> tokens = parse_pointer(pointer);
    if (!tokens.is_ok()) return nullptr;
    const Value* v = &root;
    for (const std::string& t : *tokens) {
        if (v->is_object()) {
            v = v->find(t);
        } else if (v->is_array()) {
            std::size_t i = 0;
            if (t.empty() || (t.size() > 1 && t[0] == '0')) return nullptr;
            const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
            if (ec != std::errc() || end != t.data() + t.size() || i >= v->size()) return nullptr;
            v = &v->items()[i];
        } else {
            return nullptr;
        }
        if (v == nullptr) return nullptr;
    }
    return v;
}

}  // namespace slipstream::json
