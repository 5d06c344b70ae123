// append_indented(): one pass over the text, strings copied through.
#include "json/indent.h"

namespace slipstream::json {

namespace {

void newline(std::string& out, std::size_t spaces) {
    out.push_back('\n');
    out.append(spaces, ' ');
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The next character after `i` that is not whitespace, or '\0'.
char next_token(std::string_view text, std::size_t i) {
    for (++i; i < text.size(); ++i)
        if (!is_space(text[i])) return text[i];
    return '\0';
}

}  // namespace

void append_indented(std::string_view text, std::size_t width, std::string& out) {
    out.reserve(out.size() + text.size() + text.size() / 2);
    std::size_t depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        switch (c) {
            case '"': {
                // A string, its escapes included, up to the closing quote.
                std::size_t end = i + 1;
                while (end < text.size() && text[end] != '"')
                    end += text[end] == '\\' ? 2 : 1;
                end = end < text.size() ? end + 1 : text.size();
                out.append(text.substr(i, end - i));
                i = end - 1;
                break;
            }
            case '{':
            case '[': {
                out.push_back(c);
                const char close = c == '{' ? '}' : ']';
                if (next_token(text, i) == close) {  // empty: written at once
                    out.push_back(close);
                    while (++i < text.size() && text[i] != close) {
                    }
                    break;
                }
                newline(out, ++depth * width);
                break;
            }
            case '}':
            case ']':
                newline(out, (depth > 0 ? --depth : 0) * width);
                out.push_back(c);
                break;
            case ',':
                out.push_back(',');
                newline(out, depth * width);
                break;
            case ':':
                out.append(": ");
                break;
            default:
                if (!is_space(c)) out.push_back(c);
        }
    }
}

}  // namespace slipstream::json
