// Accept-Encoding parsing and coding negotiation.
#include "http/compression/accept_encoding.h"

#include <optional>

namespace slipstream::http::compression {
namespace {

// Splits `list` at `sep`, calling fn(piece) for each piece (pieces are not trimmed).
template <typename Fn>
void split(std::string_view list, char sep, Fn fn) {
    while (true) {
        std::size_t cut = list.find(sep);
        fn(list.substr(0, cut));
        if (cut == std::string_view::npos) return;
        list.remove_prefix(cut + 1);
    }
}

// One list element: "token *( OWS ";" OWS param )". Returns the q (thousandths) or -1 when malformed.
int element_weight(std::string_view params) {
    int q = 1000;
    bool bad = false;
    split(params, ';', [&](std::string_view p) {
        p = trim_ows(p);
        if (p.empty()) return;
        std::size_t eq = p.find('=');
        if (eq == std::string_view::npos) return;  // a parameter without value: ignored
        std::string_view name = trim_ows(p.substr(0, eq));
        if (!ascii_iequals(name, "q")) return;
        int v = parse_qvalue(trim_ows(p.substr(eq + 1)));
        if (v < 0) bad = true;
        q = v;
    });
    return bad ? -1 : q;
}

}  // namespace

int parse_qvalue(std::string_view t) {
    if (t.empty() || (t[0] != '0' && t[0] != '1')) return -1;
    int whole = t[0] - '0';
    if (t.size() == 1) return whole * 1000;
    if (t[1] != '.' || t.size() > 5) return -1;
    int frac = 0, scale = 100;
    for (std::size_t i = 2; i < t.size(); ++i) {
        if (t[i] < '0' || t[i] > '9') return -1;
        frac += (t[i] - '0') * scale;
        scale /= 10;
    }
    if (whole == 1 && frac != 0) return -1;
    return whole * 1000 + frac;
}

void AcceptEncoding::add(std::string_view field_value) {
    present_ = true;
    split(field_value, ',', [&](std::string_view element) {
        element = trim_ows(element);
        if (element.empty()) return;
        std::size_t semi = element.find(';');
        std::string_view token = trim_ows(element.substr(0, semi));
        int q = element_weight(semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1));
        if (token.empty() || q < 0) return;
        if (token == "*") {
            star_ = q;
            return;
        }
        std::optional<Encoding> e = parse_encoding(token);
        if (e) weights_[static_cast<std::size_t>(*e)] = q;
    });
}

int AcceptEncoding::weight(Encoding e) const {
    int w = weights_[static_cast<std::size_t>(e)];
    if (w != kUnlisted) return w;
    if (star_ != kUnlisted) return star_;
    return e == Encoding::kIdentity ? 1000 : 0;
}

bool AcceptEncoding::identity_refused() const {
    return weight(Encoding::kIdentity) == 0;
}

Encoding AcceptEncoding::choose(std::span<const Encoding> offered) const {
    if (!present_) return Encoding::kIdentity;
    Encoding best = Encoding::kIdentity;
    int best_weight = 0;
    for (Encoding e : offered) {
        if (e == Encoding::kIdentity) continue;
        int w = weight(e);
        if (w > best_weight) {
            best = e;
            best_weight = w;
        }
    }
    if (best == Encoding::kIdentity) return best;
    // Identity wins only when the client listed it (or `*`) with a strictly higher weight.
    bool identity_listed = weights_[0] != kUnlisted || star_ != kUnlisted;
    if (identity_listed && weight(Encoding::kIdentity) > best_weight) return Encoding::kIdentity;
    return best;
}

}  // namespace slipstream::http::compression
