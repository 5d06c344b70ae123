// ApiKeyStore: key file parsing and validation, digests, lookup.
#include "policy/auth/api_key_store.h"

#include <string>
#include <vector>

#include "policy/auth/auth_config_error.h"
#include "policy/auth/config_file.h"
#include "policy/auth/sha256.h"

namespace slipstream::policy::auth {
namespace {

bool is_principal_char(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '@' || c == ':' || c == '-';
}

bool is_visible_ascii(std::string_view s) {
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x21 || c > 0x7E) return false;
    }
    return true;
}

// Each check returns the reason the field is refused, or "" when it is fine. Reasons never quote a key.
std::string check_principal(std::string_view p) {
    if (p.empty()) return "principal is empty";
    if (p.size() > kMaxPrincipalLength) return "principal is longer than 128 characters";
    for (char c : p)
        if (!is_principal_char(static_cast<unsigned char>(c)))
            return "principal has a character outside A-Z a-z 0-9 . _ @ : -";
    return {};
}

std::string check_key(std::string_view k) {
    if (k.size() < kMinApiKeyLength) return "key is shorter than 16 characters";
    if (k.size() > kMaxApiKeyLength) return "key is longer than 512 characters";
    if (!is_visible_ascii(k)) return "key has a character outside printable ASCII";
    return {};
}

std::string check_rate(std::string_view r) {
    if (r.size() > kMaxRateLength) return "rate is longer than 64 characters";
    if (!r.empty() && r.front() == '#') return "rate starts with '#' (a comment takes a whole line)";
    if (!is_visible_ascii(r)) return "rate has a character outside printable ASCII";
    return {};
}

// Splits a line into fields separated by runs of spaces and tabs.
std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

}  // namespace

// Validates entries, rejects repeated keys and principals (naming where each was first given), and fills
// the store. `unit` is "line" or "entry", for the "same as ..." part of a message.
class ApiKeyStore::Builder {
  public:
    Builder(ApiKeyStore& store, std::string_view unit) : store_(store), unit_(unit) {}

    void add(std::string_view principal, std::string_view key, std::string_view rate, std::size_t number,
             const std::string& location) {
        for (const std::string& reason : {check_principal(principal), check_key(key), check_rate(rate)})
            if (!reason.empty()) throw AuthConfigError(location, reason);
        Digest digest;
        if (!store_.sha256_->digest(key, digest)) throw AuthConfigError(location, "cannot hash the key (OpenSSL)");
        if (auto it = key_number_.find(digest); it != key_number_.end())
            throw AuthConfigError(location, "duplicate key (same as " + unit_ + " " + std::to_string(it->second) + ")");
        if (auto it = principal_number_.find(std::string(principal)); it != principal_number_.end())
            throw AuthConfigError(location, "duplicate principal \"" + std::string(principal) + "\" (same as " + unit_ +
                                                " " + std::to_string(it->second) + ")");
        key_number_.emplace(digest, number);
        principal_number_.emplace(std::string(principal), number);
        store_.entries_.emplace(digest, ApiKeyEntry{std::string(principal), std::string(rate)});
    }

  private:
    ApiKeyStore& store_;
    std::string unit_;
    std::unordered_map<Digest, std::size_t, DigestHash> key_number_;
    std::unordered_map<std::string, std::size_t> principal_number_;
};

ApiKeyStore::ApiKeyStore() : sha256_(std::make_unique<const detail::Sha256>()) {}

ApiKeyStore::ApiKeyStore(std::span<const ApiKey> keys) : ApiKeyStore() {
    Builder builder(*this, "entry");
    for (std::size_t i = 0; i < keys.size(); ++i)
        builder.add(keys[i].principal, keys[i].key, keys[i].rate, i + 1, "entry " + std::to_string(i + 1));
}

ApiKeyStore::ApiKeyStore(ApiKeyStore&&) noexcept = default;
ApiKeyStore& ApiKeyStore::operator=(ApiKeyStore&&) noexcept = default;
ApiKeyStore::~ApiKeyStore() = default;

ApiKeyStore ApiKeyStore::load_file(const std::string& path) {
    return parse(detail::read_config_file(path), path);
}

ApiKeyStore ApiKeyStore::parse(std::string_view text, std::string_view source) {
    ApiKeyStore store;
    Builder builder(store, "line");
    std::size_t line_number = 0;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

        const std::vector<std::string_view> fields = split_fields(line);
        if (fields.empty() || fields[0].front() == '#') continue;
        const std::string location = std::string(source) + ":" + std::to_string(line_number);
        if (fields.size() < 2 || fields.size() > 3)
            throw AuthConfigError(location, "expected '<principal> <key> [<rate>]', found " +
                                                std::to_string(fields.size()) +
                                                (fields.size() == 1 ? " field" : " fields"));
        builder.add(fields[0], fields[1], fields.size() == 3 ? fields[2] : std::string_view(), line_number, location);
    }
    return store;
}

const ApiKeyEntry* ApiKeyStore::find(std::string_view presented_key) const {
    // Keys outside the accepted lengths cannot be stored: skip hashing them (a length says nothing secret).
    if (presented_key.size() < kMinApiKeyLength || presented_key.size() > kMaxApiKeyLength) return nullptr;
    Digest digest;
    if (!sha256_->digest(presented_key, digest)) return nullptr;
    auto it = entries_.find(digest);
    return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace slipstream::policy::auth
