// column_type_name: names of the store's value kinds, for messages and tests.
#include "store/column_type.h"

namespace slipstream::store {

std::string_view column_type_name(ColumnType type) {
    switch (type) {
        case ColumnType::kNull:
            return "null";
        case ColumnType::kBool:
            return "bool";
        case ColumnType::kInt:
            return "int";
        case ColumnType::kFloat:
            return "float";
        case ColumnType::kNumeric:
            return "numeric";
        case ColumnType::kText:
            return "text";
        case ColumnType::kBytes:
            return "bytes";
        case ColumnType::kUuid:
            return "uuid";
        case ColumnType::kDate:
            return "date";
        case ColumnType::kTime:
            return "time";
        case ColumnType::kTimestamp:
            return "timestamp";
        case ColumnType::kTimestampTz:
            return "timestamptz";
        case ColumnType::kInterval:
            return "interval";
        case ColumnType::kJson:
            return "json";
        case ColumnType::kArray:
            return "array";
    }
    return "unknown";
}

}  // namespace slipstream::store
