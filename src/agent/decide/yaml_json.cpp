// yaml_to_json(): libyaml events written straight into a JSON text (no tree), with the core schema's scalars.
#include "agent/decide/yaml_json.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "json/writer.h"

#if SLIPSTREAM_HAVE_YAML
#include <yaml.h>
#endif

namespace slipstream::agent::decide {

#if SLIPSTREAM_HAVE_YAML

namespace {

std::string at(const yaml_mark_t& m, YamlMark* where = nullptr) {
    if (where != nullptr && where->line == 0) *where = YamlMark{m.line + 1, m.column + 1};
    return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1) + ": ";
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> forms) {
    for (std::string_view f : forms)
        if (s == f) return true;
    return false;
}

bool digits(std::string_view s, int base) {
    if (s.empty()) return false;
    for (char c : s) {
        const bool ok = base == 16  ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                        : base == 8 ? c >= '0' && c <= '7'
                                    : c >= '0' && c <= '9';
        if (!ok) return false;
    }
    return true;
}

// [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool core_float(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        ++i, ++int_digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i, ++frac_digits;
    }
    if (int_digits == 0 && frac_digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        std::size_t exp_digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i, ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == s.size();
}

// A plain scalar as JSON by the core schema; an error text for what JSON cannot hold.
std::string plain(std::string_view s, json::Writer& w) {
    if (one_of(s, {"", "~", "null", "Null", "NULL"})) {
        w.null();
        return "";
    }
    if (one_of(s, {"true", "True", "TRUE"}) || one_of(s, {"false", "False", "FALSE"})) {
        w.boolean(s[0] == 't' || s[0] == 'T');
        return "";
    }
    if (one_of(s,
               {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"}))
        return "infinities and NaN are not JSON numbers";
    const bool hex = s.starts_with("0x") && digits(s.substr(2), 16);
    const bool oct = s.starts_with("0o") && digits(s.substr(2), 8);
    if (hex || oct) {
        errno = 0;
        const std::string text(s.substr(2));
        const unsigned long long v = std::strtoull(text.c_str(), nullptr, hex ? 16 : 8);
        if (errno == ERANGE) return "the integer is too large";
        w.uint64(v);
        return "";
    }
    if (core_float(s)) {
        const std::string text(s);
        errno = 0;
        const double d = std::strtod(text.c_str(), nullptr);
        if (errno == ERANGE && (d > 1 || d < -1)) return "the number is too large";
        const bool integer = text.find_first_of(".eE") == std::string::npos;
        if (integer && text.size() < 19) {
            w.int64(std::strtoll(text.c_str(), nullptr, 10));
            return "";
        }
        if (!w.number(d).is_ok()) return "the number is not finite";
        return "";
    }
    w.string(s);
    return "";
}

class Converter {
  public:
    Converter(std::size_t max_depth, YamlMark* where) : max_depth_(max_depth), where_(where), w_(out_) {}

    base::Result<std::string> run(std::string_view yaml) {
        yaml_parser_t parser;
        if (yaml_parser_initialize(&parser) == 0) return base::Status::resource_exhausted("YAML: out of memory");
        yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(yaml.data()), yaml.size());
        std::string error;
        bool done = false;
        while (!done && error.empty()) {
            yaml_event_t event;
            if (yaml_parser_parse(&parser, &event) == 0) {
                error = at(parser.problem_mark, where_) + (parser.problem != nullptr ? parser.problem : "bad YAML");
                if (parser.context != nullptr) error += " (" + std::string(parser.context) + ")";
                break;
            }
            error = handle(event);
            done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
        }
        yaml_parser_delete(&parser);
        if (!error.empty()) return base::Status::invalid_argument(error);
        if (documents_ == 0) {
            if (where_ != nullptr) *where_ = YamlMark{1, 1};
            return base::Status::invalid_argument("line 1, column 1: the document is empty");
        }
        return std::move(out_);
    }

  private:
    enum class Frame : unsigned char { kMapKey, kMapValue, kSequence };

    // Before a value: a mapping expecting a key takes scalars only, as the key.
    std::string handle(const yaml_event_t& e) {
        const std::string where = at(e.start_mark);
        yaml_mark_t mark = e.start_mark;
        std::string error = event(e, where);
        if (!error.empty()) at(mark, where_);
        return error;
    }

    std::string event(const yaml_event_t& e, const std::string& where) {
        switch (e.type) {
            case YAML_DOCUMENT_START_EVENT:
                if (++documents_ > 1) return where + "one YAML document is expected, found a second";
                return "";
            case YAML_ALIAS_EVENT:
                return where + "aliases (*name) are not supported";
            case YAML_SCALAR_EVENT: {
                const std::string_view text(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
                if (!stack_.empty() && stack_.back() == Frame::kMapKey) {
                    w_.key(text);
                    stack_.back() = Frame::kMapValue;
                    return "";
                }
                const char* tag = reinterpret_cast<const char*>(e.data.scalar.tag);
                const bool as_string = e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                                       (tag != nullptr && std::strcmp(tag, YAML_STR_TAG) == 0);
                std::string bad;
                if (as_string)
                    w_.string(text);
                else
                    bad = plain(text, w_);
                if (!bad.empty()) return where + bad;
                after_value();
                return "";
            }
            case YAML_MAPPING_START_EVENT:
            case YAML_SEQUENCE_START_EVENT: {
                if (!stack_.empty() && stack_.back() == Frame::kMapKey) return where + "mapping keys must be scalars";
                if (stack_.size() >= max_depth_)
                    return where + "nests deeper than " + std::to_string(max_depth_) + " levels";
                if (e.type == YAML_MAPPING_START_EVENT) {
                    w_.begin_object();
                    stack_.push_back(Frame::kMapKey);
                } else {
                    w_.begin_array();
                    stack_.push_back(Frame::kSequence);
                }
                return "";
            }
            case YAML_MAPPING_END_EVENT:
                w_.end_object();
                stack_.pop_back();
                after_value();
                return "";
            case YAML_SEQUENCE_END_EVENT:
                w_.end_array();
                stack_.pop_back();
                after_value();
                return "";
            default:
                return "";
        }
    }

    void after_value() {
        if (!stack_.empty() && stack_.back() == Frame::kMapValue) stack_.back() = Frame::kMapKey;
    }

    std::size_t max_depth_;
    YamlMark* where_;
    std::string out_;
    json::Writer w_;
    std::vector<Frame> stack_;
    int documents_ = 0;
};

}  // namespace

bool yaml_supported() {
    return true;
}

base::Result<std::string> yaml_to_json(std::string_view yaml, std::size_t max_depth, YamlMark* where) {
    return Converter(max_depth, where).run(yaml);
}

#else

bool yaml_supported() {
    return false;
}

base::Result<std::string> yaml_to_json(std::string_view, std::size_t, YamlMark*) {
    return base::Status::invalid_argument("this server was built without YAML support (libyaml)");
}

#endif

}  // namespace slipstream::agent::decide
