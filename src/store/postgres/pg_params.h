// PgParams: store::Params encoded for libpq's PQsendQueryParams / PQsendPrepare / PQsendQueryPrepared.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <vector>

#include "store/value.h"

namespace slipstream::store::postgres {

/// Each parameter as a type OID, a value and a format: NULL -> null pointer; bool -> bool "t"/"f"; int64 -> int8
/// text; double -> float8 text (shortest round trip, "NaN"/"Infinity"/"-Infinity"); text -> OID 0, so the
/// server infers the type from the statement (text, numeric, uuid, date, json, ...); Bytes -> bytea, binary.
/// Values travel out of band (extended protocol), so no parameter can change the statement's text.
class PgParams {
  public:
    explicit PgParams(const Params& params);

    int count() const { return static_cast<int>(types_.size()); }
    const Oid* types() const { return types_.data(); }
    /// Pointers into this object's own storage; valid while it lives and is not moved.
    const char* const* values();
    const int* lengths() const { return lengths_.data(); }
    const int* formats() const { return formats_.data(); }
    /// The type OIDs as a key suffix: a statement prepared for int8 differs from one prepared for text.
    std::string type_signature() const;

  private:
    std::vector<Oid> types_;
    std::vector<std::string> storage_;
    std::vector<bool> null_;
    std::vector<const char*> values_;
    std::vector<int> lengths_;
    std::vector<int> formats_;
};

}  // namespace slipstream::store::postgres
