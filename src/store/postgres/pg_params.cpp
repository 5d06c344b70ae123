// PgParams: Values to libpq's parallel parameter arrays.
#include "store/postgres/pg_params.h"

#include <cmath>
#include <type_traits>

#include "json/format_double.h"

namespace slipstream::store::postgres {

namespace {

constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;

std::string double_text(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    char buf[json::kMaxDoubleChars];
    return std::string(buf, json::format_double(d, buf));
}

}  // namespace

PgParams::PgParams(const Params& params) {
    const std::size_t n = params.size();
    types_.resize(n);
    storage_.resize(n);
    null_.resize(n);
    lengths_.resize(n);
    formats_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::monostate>) {
                    null_[i] = true;
                } else if constexpr (std::is_same_v<T, bool>) {
                    types_[i] = kBoolOid;
                    storage_[i] = v ? "t" : "f";
                } else if constexpr (std::is_same_v<T, std::int64_t>) {
                    types_[i] = kInt8Oid;
                    storage_[i] = std::to_string(v);
                } else if constexpr (std::is_same_v<T, double>) {
                    types_[i] = kFloat8Oid;
                    storage_[i] = double_text(v);
                } else if constexpr (std::is_same_v<T, std::string>) {
                    storage_[i] = v;
                } else {
                    types_[i] = kByteaOid;
                    storage_[i] = v.data;
                    formats_[i] = 1;
                }
            },
            params[i]);
        lengths_[i] = static_cast<int>(storage_[i].size());
    }
}

const char* const* PgParams::values() {
    values_.resize(storage_.size());
    for (std::size_t i = 0; i < storage_.size(); ++i)
        values_[i] = null_[i] ? nullptr : storage_[i].data();
    return values_.data();
}

std::string PgParams::type_signature() const {
    std::string sig;
    for (Oid t : types_) {
        sig += std::to_string(t);
        sig += ',';
    }
    return sig;
}

}  // namespace slipstream::store::postgres
