// ECMA-262 -> RE2 pattern translation and the compiled Regex.
#include "json/schema/regex.h"

#include <re2/re2.h>

#include <cstdio>

#include "json/schema/str_cat.h"

namespace slipstream::json::schema::detail {
namespace {

// ECMA-262 WhiteSpace + LineTerminator (what `\s` means there; RE2's `\s` is ASCII only).
constexpr std::string_view kSpaceRanges =
    "\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
// ECMA `.` excludes the four line terminators; RE2's excludes only \n.
constexpr std::string_view kDot = "[^\\n\\r\\x{2028}\\x{2029}]";

struct PropertyAlias {
    std::string_view ecma;
    std::string_view re2;
};
constexpr PropertyAlias kAliases[] = {
    {"Letter", "L"},
    {"Cased_Letter", "LC"},
    {"Lowercase_Letter", "Ll"},
    {"Uppercase_Letter", "Lu"},
    {"Titlecase_Letter", "Lt"},
    {"Modifier_Letter", "Lm"},
    {"Other_Letter", "Lo"},
    {"Mark", "M"},
    {"Combining_Mark", "M"},
    {"Nonspacing_Mark", "Mn"},
    {"Spacing_Mark", "Mc"},
    {"Enclosing_Mark", "Me"},
    {"Number", "N"},
    {"Decimal_Number", "Nd"},
    {"digit", "Nd"},
    {"Letter_Number", "Nl"},
    {"Other_Number", "No"},
    {"Punctuation", "P"},
    {"punct", "P"},
    {"Connector_Punctuation", "Pc"},
    {"Dash_Punctuation", "Pd"},
    {"Open_Punctuation", "Ps"},
    {"Close_Punctuation", "Pe"},
    {"Initial_Punctuation", "Pi"},
    {"Final_Punctuation", "Pf"},
    {"Other_Punctuation", "Po"},
    {"Symbol", "S"},
    {"Math_Symbol", "Sm"},
    {"Currency_Symbol", "Sc"},
    {"Modifier_Symbol", "Sk"},
    {"Other_Symbol", "So"},
    {"Separator", "Z"},
    {"Space_Separator", "Zs"},
    {"Line_Separator", "Zl"},
    {"Paragraph_Separator", "Zp"},
    {"Other", "C"},
    {"Control", "Cc"},
    {"cntrl", "Cc"},
    {"Format", "Cf"},
    {"Surrogate", "Cs"},
    {"Private_Use", "Co"},
};

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hex_value(char c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
bool is_syntax_char(char c) {
    return std::string_view("^$\\.*+?()[]{}|/").find(c) != std::string_view::npos;
}

// \t \n \r \f \v in RE2 syntax (RE2 has no \v for the vertical tab).
std::string_view control_escape(char e) {
    switch (e) {
        case 't':
            return "\\t";
        case 'n':
            return "\\n";
        case 'r':
            return "\\r";
        case 'f':
            return "\\f";
        default:
            return "\\x0B";
    }
}

std::string code_point(std::uint32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "\\x{%X}", cp);
    return buf;
}

class Translator {
  public:
    Translator(std::string_view p, std::string* out, std::string* error) : p_(p), out_(*out), error_(*error) {}

    RegexSyntax run() {
        named_groups_ = has_named_groups();
        while (i_ < p_.size()) {
            RegexSyntax r = atom();
            if (r != RegexSyntax::kOk) return r;
        }
        return RegexSyntax::kOk;
    }

  private:
    RegexSyntax fail(RegexSyntax kind, std::string message) {
        error_ = std::move(message);
        return kind;
    }

    bool has_named_groups() const {
        for (std::size_t k = 0; k + 3 < p_.size(); ++k)
            if (p_.substr(k, 3) == "(?<" && p_[k + 3] != '=' && p_[k + 3] != '!') return true;
        return false;
    }

    RegexSyntax atom() {
        char c = p_[i_];
        switch (c) {
            case '\\':
                return escape(false, &out_);
            case '[':
                return char_class();
            case '.':
                out_ += kDot;
                ++i_;
                return RegexSyntax::kOk;
            case '(':
                return group();
            case '{':
                return quantifier();
            case '}':
            case ']':
                return fail(RegexSyntax::kInvalid, std::string("unbalanced '") + c + "'");
            default:
                out_.push_back(c);
                ++i_;
                return RegexSyntax::kOk;
        }
    }

    RegexSyntax group() {
        if (p_.substr(i_, 3) == "(?=" || p_.substr(i_, 3) == "(?!")
            return fail(RegexSyntax::kUnsupported, "lookahead is not supported (RE2 runs in linear time)");
        if (p_.substr(i_, 4) == "(?<=" || p_.substr(i_, 4) == "(?<!")
            return fail(RegexSyntax::kUnsupported, "lookbehind is not supported (RE2 runs in linear time)");
        if (p_.substr(i_, 3) == "(?<") {
            auto end = p_.find('>', i_);
            if (end == std::string_view::npos) return fail(RegexSyntax::kInvalid, "unterminated group name");
            out_ += "(?P<";
            out_.append(p_.substr(i_ + 3, end - i_ - 3));
            out_ += ">";
            i_ = end + 1;
            return RegexSyntax::kOk;
        }
        if (p_.substr(i_, 3) == "(?:") {
            out_ += "(?:";
            i_ += 3;
            return RegexSyntax::kOk;
        }
        if (p_.substr(i_, 2) == "(?") return fail(RegexSyntax::kInvalid, "invalid group");
        out_.push_back('(');
        ++i_;
        return RegexSyntax::kOk;
    }

    RegexSyntax quantifier() {
        std::size_t k = i_ + 1;
        std::size_t digits = 0;
        while (k < p_.size() && p_[k] >= '0' && p_[k] <= '9')
            ++k, ++digits;
        if (digits > 0 && k < p_.size() && p_[k] == ',') {
            ++k;
            while (k < p_.size() && p_[k] >= '0' && p_[k] <= '9')
                ++k;
        }
        if (digits == 0 || k >= p_.size() || p_[k] != '}')
            return fail(RegexSyntax::kInvalid, "lone '{' (use \\{ for a literal brace)");
        out_.append(p_.substr(i_, k + 1 - i_));
        i_ = k + 1;
        return RegexSyntax::kOk;
    }

    RegexSyntax char_class() {
        ++i_;
        bool negated = i_ < p_.size() && p_[i_] == '^';
        if (negated) ++i_;
        std::string body;
        while (i_ < p_.size() && p_[i_] != ']') {
            if (p_[i_] == '\\') {
                RegexSyntax r = escape(true, &body);
                if (r != RegexSyntax::kOk) return r;
            } else if (p_[i_] == '[') {
                body += "\\[";
                ++i_;
            } else {
                body.push_back(p_[i_++]);
            }
        }
        if (i_ >= p_.size()) return fail(RegexSyntax::kInvalid, "unterminated character class");
        ++i_;
        if (body.empty()) {  // ECMA: [] matches nothing, [^] matches anything
            out_ += negated ? "[\\x00-\\x{10FFFF}]" : "[^\\x00-\\x{10FFFF}]";
            return RegexSyntax::kOk;
        }
        out_ += negated ? "[^" : "[";
        out_ += body;
        out_ += "]";
        return RegexSyntax::kOk;
    }

    RegexSyntax unicode_escape(std::string* out) {
        // i_ points after "\u"
        std::uint32_t cp = 0;
        if (i_ < p_.size() && p_[i_] == '{') {
            std::size_t k = i_ + 1;
            while (k < p_.size() && is_hex(p_[k]) && cp <= 0x10FFFF)
                cp = cp * 16 + hex_value(p_[k++]);
            if (k == i_ + 1 || k >= p_.size() || p_[k] != '}' || cp > 0x10FFFF)
                return fail(RegexSyntax::kInvalid, "invalid \\u{...} escape");
            i_ = k + 1;
        } else {
            if (i_ + 4 > p_.size() || !is_hex(p_[i_]) || !is_hex(p_[i_ + 1]) || !is_hex(p_[i_ + 2]) ||
                !is_hex(p_[i_ + 3]))
                return fail(RegexSyntax::kInvalid, "invalid \\u escape");
            for (int k = 0; k < 4; ++k)
                cp = cp * 16 + hex_value(p_[i_++]);
            if (cp >= 0xD800 && cp <= 0xDBFF && p_.substr(i_, 2) == "\\u" && i_ + 6 <= p_.size()) {
                std::uint32_t lo = 0;
                bool ok = true;
                for (int k = 2; k < 6; ++k) {
                    ok = ok && is_hex(p_[i_ + k]);
                    if (ok) lo = lo * 16 + hex_value(p_[i_ + k]);
                }
                if (ok && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i_ += 6;
                }
            }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF)
            return fail(RegexSyntax::kUnsupported, "lone surrogate escapes cannot match UTF-8 text");
        *out += code_point(cp);
        return RegexSyntax::kOk;
    }

    RegexSyntax property(char kind, std::string* out) {
        // i_ points after "\p" / "\P"
        if (i_ >= p_.size() || p_[i_] != '{') return fail(RegexSyntax::kInvalid, "\\p needs {Name}");
        auto end = p_.find('}', i_);
        if (end == std::string_view::npos) return fail(RegexSyntax::kInvalid, "unterminated \\p{...}");
        std::string_view name = p_.substr(i_ + 1, end - i_ - 1);
        i_ = end + 1;
        if (auto eq = name.find('='); eq != std::string_view::npos) name = name.substr(eq + 1);
        for (const PropertyAlias& a : kAliases)
            if (a.ecma == name) name = a.re2;
        *out += '\\';
        *out += kind;
        *out += '{';
        out->append(name);
        *out += '}';
        return RegexSyntax::kOk;
    }

    RegexSyntax escape(bool in_class, std::string* out) {
        if (i_ + 1 >= p_.size()) return fail(RegexSyntax::kInvalid, "'\\' at end of pattern");
        char e = p_[i_ + 1];
        i_ += 2;
        switch (e) {
            case 'd':
            case 'D':
            case 'w':
            case 'W':
                *out += '\\';
                *out += e;
                return RegexSyntax::kOk;
            case 'b':
            case 'B':
                if (in_class) {
                    if (e == 'B') return fail(RegexSyntax::kInvalid, "\\B in a character class");
                    *out += "\\x08";
                } else {
                    *out += '\\';
                    *out += e;
                }
                return RegexSyntax::kOk;
            case 's':
                *out += in_class ? std::string(kSpaceRanges) : cat("[", kSpaceRanges, "]");
                return RegexSyntax::kOk;
            case 'S':
                *out += in_class ? std::string("\\S") : cat("[^", kSpaceRanges, "]");
                return RegexSyntax::kOk;
            case 't':
            case 'n':
            case 'r':
            case 'f':
            case 'v':
                *out += control_escape(e);
                return RegexSyntax::kOk;
            case '0':
                if (i_ < p_.size() && p_[i_] >= '0' && p_[i_] <= '9')
                    return fail(RegexSyntax::kInvalid, "octal escapes are not allowed");
                *out += "\\x00";
                return RegexSyntax::kOk;
            case 'x':
                if (i_ + 2 > p_.size() || !is_hex(p_[i_]) || !is_hex(p_[i_ + 1]))
                    return fail(RegexSyntax::kInvalid, "invalid \\x escape");
                *out += code_point(static_cast<std::uint32_t>(hex_value(p_[i_]) * 16 + hex_value(p_[i_ + 1])));
                i_ += 2;
                return RegexSyntax::kOk;
            case 'u':
                return unicode_escape(out);
            case 'c':
                if (i_ >= p_.size() || !((p_[i_] | 0x20) >= 'a' && (p_[i_] | 0x20) <= 'z'))
                    return fail(RegexSyntax::kInvalid, "\\c needs a letter");
                *out += code_point(static_cast<std::uint32_t>(p_[i_++] % 32));
                return RegexSyntax::kOk;
            case 'p':
            case 'P':
                return property(e, out);
            case 'k':
                if (named_groups_) return fail(RegexSyntax::kUnsupported, "backreferences are not supported");
                return fail(RegexSyntax::kInvalid, "invalid escape \\k");
            case '-':
                if (in_class) {
                    *out += "\\-";
                    return RegexSyntax::kOk;
                }
                return fail(RegexSyntax::kInvalid, "invalid escape \\-");
            default:
                break;
        }
        if (e >= '1' && e <= '9') {
            if (in_class) return fail(RegexSyntax::kInvalid, "backreference in a character class");
            return fail(RegexSyntax::kUnsupported, "backreferences are not supported (RE2 runs in linear time)");
        }
        if (is_syntax_char(e)) {
            if (e != '/') *out += '\\';
            *out += e;
            return RegexSyntax::kOk;
        }
        return fail(RegexSyntax::kInvalid, std::string("invalid escape \\") + e);
    }

    std::string_view p_;
    std::string& out_;
    std::string& error_;
    std::size_t i_ = 0;
    bool named_groups_ = false;
};

RE2::Options re2_options() {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingUTF8);
    options.set_log_errors(false);
    options.set_max_mem(8 << 20);
    return options;
}

}  // namespace

RegexSyntax translate_ecma_regex(std::string_view ecma, std::string* out, std::string* error) {
    out->clear();
    return Translator(ecma, out, error).run();
}

std::unique_ptr<Regex> Regex::compile(std::string_view ecma, std::string* error) {
    std::string translated;
    if (translate_ecma_regex(ecma, &translated, error) != RegexSyntax::kOk) return nullptr;
    auto re = std::make_unique<re2::RE2>(translated, re2_options());
    if (!re->ok()) {
        *error = "RE2 cannot compile it: " + re->error();
        return nullptr;
    }
    return std::unique_ptr<Regex>(new Regex(std::string(ecma), std::move(re)));
}

Regex::Regex(std::string source, std::unique_ptr<re2::RE2> re) : source_(std::move(source)), re_(std::move(re)) {}
Regex::~Regex() = default;

bool Regex::search(std::string_view text) const {
    return RE2::PartialMatch(text, *re_);
}

bool is_valid_ecma_regex(std::string_view ecma) {
    std::string translated, error;
    RegexSyntax syntax = translate_ecma_regex(ecma, &translated, &error);
    if (syntax != RegexSyntax::kOk) return syntax == RegexSyntax::kUnsupported;
    re2::RE2 re(translated, re2_options());
    return re.ok() || re.error_code() == RE2::ErrorRepeatSize || re.error_code() == RE2::ErrorPatternTooLarge;
}

}  // namespace slipstream::json::schema::detail
