// Config files: `key = value` lines whose keys are the flag names without dashes.
#include "app/config_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "app/config_error.h"

namespace slipstream::app {
namespace {

std::string_view trim(std::string_view s) {
    const char* kSpace = " \t\r";
    std::size_t b = s.find_first_not_of(kSpace);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

// Removes the quotes of "text"; false when the quoting is malformed.
bool unquote(std::string_view value, std::string* out) {
    if (value.front() != '"') {
        *out = std::string(value);
        return true;
    }
    if (value.size() < 2 || value.back() != '"') return false;
    std::string_view inner = value.substr(1, value.size() - 2);
    if (inner.find('"') != std::string_view::npos) return false;
    *out = std::string(inner);
    return true;
}

}  // namespace

std::vector<Assignment> parse_config_text(std::string_view text, std::string_view label, const Registry& registry) {
    std::vector<Assignment> out;
    std::map<std::string, std::size_t, std::less<>> first_line;
    std::size_t line_no = 0;
    while (!text.empty()) {
        std::size_t eol = text.find('\n');
        std::string_view line = trim(text.substr(0, eol));
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        ++line_no;
        if (line.empty() || line.front() == '#') continue;

        std::string at = std::string(label) + ":" + std::to_string(line_no) + ": ";
        auto fail = [&](const std::string& reason) { throw ConfigError(at + reason); };
        std::size_t eq = line.find('=');
        std::string_view key = trim(line.substr(0, eq));
        if (eq == std::string_view::npos || key.empty()) fail("expected 'key = value'");
        std::string_view raw = trim(line.substr(eq + 1));
        if (raw.empty()) fail("missing value for '" + std::string(key) + "' (write \"\" for an empty string)");

        const Option* option = registry.find(key);
        if (option == nullptr) fail("unknown key '" + std::string(key) + "'");
        if (!option->in_file) fail("'" + std::string(key) + "' cannot be set in a config file");
        auto [it, fresh] = first_line.emplace(std::string(key), line_no);
        if (!fresh)
            fail("duplicate key '" + std::string(key) + "' (first set on line " + std::to_string(it->second) + ")");
        std::string value;
        if (!unquote(raw, &value)) fail("bad quoted value " + std::string(raw) + " (expected \"text\")");
        out.push_back({option, std::move(value), at + option->name});
    }
    return out;
}

std::vector<Assignment> read_config_file(const std::string& path, const Registry& registry) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw ConfigError("cannot read config file '" + path + "': " + std::strerror(errno));
    std::string text;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0)
        text.append(buf, n);
    if (std::ferror(file.get())) throw ConfigError("cannot read config file '" + path + "': " + std::strerror(errno));
    return parse_config_text(text, path, registry);
}

}  // namespace slipstream::app
