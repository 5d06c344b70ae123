// DeflateConfig: parsing extension offers and choosing permessage-deflate parameters.
#include "http/ws/deflate_config.h"

#include "http/ws/token_list.h"

namespace slipstream::http::ws {
namespace {

// Parses "8".."15" (a quoted value is allowed by RFC 7692 §7.1); 0 when invalid.
int parse_window_bits(std::string_view v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    if (v.empty() || v.size() > 2 || v[0] == '0') return 0;
    int n = 0;
    for (char c : v) {
        if (c < '0' || c > '9') return 0;
        n = n * 10 + (c - '0');
    }
    return (n >= 8 && n <= 15) ? n : 0;
}

// One offer: "permessage-deflate; p1; p2=v". Returns nullopt when it must be declined.
std::optional<DeflateConfig> parse_offer(std::string_view offer) {
    std::size_t semi = offer.find(';');
    if (!ascii_iequals(trim_ows(offer.substr(0, semi)), "permessage-deflate")) return std::nullopt;
    DeflateConfig c;
    bool seen_snct = false, seen_cnct = false, seen_smwb = false, seen_cmwb = false;
    while (semi != std::string_view::npos) {
        offer.remove_prefix(semi + 1);
        semi = offer.find(';');
        std::string_view param = trim_ows(offer.substr(0, semi));
        std::size_t eq = param.find('=');
        std::string_view key = trim_ows(param.substr(0, eq));
        std::string_view value = eq == std::string_view::npos ? std::string_view() : trim_ows(param.substr(eq + 1));
        bool has_value = eq != std::string_view::npos;
        if (key == "server_no_context_takeover") {
            if (seen_snct || has_value) return std::nullopt;
            seen_snct = c.server_no_context_takeover = true;
        } else if (key == "client_no_context_takeover") {
            if (seen_cnct || has_value) return std::nullopt;
            seen_cnct = c.client_no_context_takeover = true;
        } else if (key == "server_max_window_bits") {
            int bits = parse_window_bits(value);
            if (seen_smwb || bits == 0 || bits == 8) return std::nullopt;
            seen_smwb = c.server_max_window_bits_set = true;
            c.server_max_window_bits = bits;
        } else if (key == "client_max_window_bits") {
            // The client tells us it can limit its window; we inflate with a 32 KiB window, which reads
            // any smaller one, so the parameter is accepted and left out of the response.
            if (seen_cmwb || (has_value && parse_window_bits(value) == 0)) return std::nullopt;
            seen_cmwb = true;
        } else {
            return std::nullopt;
        }
    }
    return c;
}

}  // namespace

std::string DeflateConfig::response_header() const {
    std::string out = "permessage-deflate";
    if (server_no_context_takeover) out.append("; server_no_context_takeover");
    if (client_no_context_takeover) out.append("; client_no_context_takeover");
    if (server_max_window_bits_set) {
        out.append("; server_max_window_bits=");
        out.append(std::to_string(server_max_window_bits));
    }
    return out;
}

std::optional<DeflateConfig> negotiate_deflate(std::string_view extensions) {
    std::optional<DeflateConfig> chosen;
    for_each_list_item(extensions, [&](std::string_view offer) {
        if (!chosen) chosen = parse_offer(offer);
    });
    return chosen;
}

}  // namespace slipstream::http::ws
