// Python values as binary COPY fields: fixed-size kinds written in place, numeric from Decimal's digits, dates
// and times as PostgreSQL's offsets from 2000-01-01, uuid's 16 bytes, JSON as text (jsonb with its version byte).
#include "copy_binary.h"

// clang-format off
#include <datetime.h>
// clang-format on

#include <algorithm>
#include <bit>
#include <charconv>
#include <string_view>
#include <vector>

#include "db_values.h"
#include "py_ref.h"

namespace slipstream::python {

namespace {

// PostgreSQL type OIDs with a binary form here.
enum : std::uint32_t {
    kBool = 16,
    kBytea = 17,
    kName = 19,
    kInt8 = 20,
    kInt2 = 21,
    kInt4 = 23,
    kText = 25,
    kJson = 114,
    kFloat4 = 700,
    kFloat8 = 701,
    kBpchar = 1042,
    kVarchar = 1043,
    kDate = 1082,
    kTime = 1083,
    kTimestamp = 1114,
    kTimestamptz = 1184,
    kInterval = 1186,
    kNumeric = 1700,
    kUuid = 2950,
    kJsonb = 3802,
};

constexpr std::int64_t kMicrosPerDay = 86'400'000'000LL;

// db_values.h's types, with the datetime C API of this file (each file that uses it imports it).
const ParamTypes* types() {
    if (PyDateTimeAPI == nullptr) {
        PyDateTime_IMPORT;
        if (PyDateTimeAPI == nullptr) return nullptr;
    }
    return param_types();
}

// Days from 1970-01-01 to the civil date (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Days from PostgreSQL's epoch (2000-01-01) to a Python date.
std::int64_t pg_days(PyObject* date) {
    static const std::int64_t epoch = days_from_civil(2000, 1, 1);
    return days_from_civil(PyDateTime_GET_YEAR(date), static_cast<unsigned>(PyDateTime_GET_MONTH(date)),
                           static_cast<unsigned>(PyDateTime_GET_DAY(date))) -
           epoch;
}

std::int64_t time_micros(int h, int m, int s, int us) {
    return ((static_cast<std::int64_t>(h) * 60 + m) * 60 + s) * 1'000'000 + us;
}

std::int64_t delta_micros(PyObject* delta) {
    return (static_cast<std::int64_t>(PyDateTime_DELTA_GET_DAYS(delta)) * 86'400 +
            PyDateTime_DELTA_GET_SECONDS(delta)) *
               1'000'000 +
           PyDateTime_DELTA_GET_MICROSECONDS(delta);
}

Field put_bytes(const char* data, std::size_t n, bool jsonb, CopyOut& out) {
    if (n > static_cast<std::size_t>(INT32_MAX) - 1) return Field::kMismatch;
    out.put32(static_cast<std::uint32_t>(n + (jsonb ? 1 : 0)));
    if (jsonb) {
        *out.room(1) = 1;  // jsonb's binary format version
        ++out.len;
    }
    out.put(data, n);
    return Field::kOk;
}

Field put_text(PyObject* str, bool jsonb, CopyOut& out) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(str, &n);
    if (s == nullptr) return Field::kError;
    if (std::memchr(s, 0, static_cast<std::size_t>(n)) != nullptr) return Field::kMismatch;  // the server refuses NUL
    return put_bytes(s, static_cast<std::size_t>(n), jsonb, out);
}

Field integer(PyObject* obj, std::uint32_t oid, CopyOut& out) {
    if (!PyLong_CheckExact(obj)) return Field::kMismatch;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return Field::kMismatch;
    }
    if (oid == kInt2) {
        if (v < INT16_MIN || v > INT16_MAX) return Field::kMismatch;
        out.put32(2);
        out.put16(static_cast<std::uint16_t>(v));
    } else if (oid == kInt4) {
        if (v < INT32_MIN || v > INT32_MAX) return Field::kMismatch;
        out.put32(4);
        out.put32(static_cast<std::uint32_t>(v));
    } else {
        out.put32(8);
        out.put64(static_cast<std::uint64_t>(v));
    }
    return Field::kOk;
}

Field floating(PyObject* obj, std::uint32_t oid, CopyOut& out) {
    double d = 0;
    if (PyFloat_CheckExact(obj)) {
        d = PyFloat_AS_DOUBLE(obj);
    } else if (PyLong_CheckExact(obj)) {
        d = PyLong_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return Field::kMismatch;
        }
    } else {
        return Field::kMismatch;
    }
    if (oid == kFloat4) {
        out.put32(4);
        out.put32(std::bit_cast<std::uint32_t>(static_cast<float>(d)));
    } else {
        out.put32(8);
        out.put64(std::bit_cast<std::uint64_t>(d));
    }
    return Field::kOk;
}

// numeric's binary form from a decimal text ("-1.50", "1E+3", "NaN", "-Infinity"): base-10000 digits around
// the decimal point, the weight of the first, a sign and the display scale (the digits after the point).
Field numeric_from_text(std::string_view s, CopyOut& out) {
    constexpr std::uint16_t kPos = 0x0000, kNeg = 0x4000, kNaN = 0xC000, kPinf = 0xD000, kNinf = 0xF000;
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    const std::string_view rest = s.substr(i);
    auto special = [&out](std::uint16_t sign) {
        out.put32(8);
        out.put16(0);
        out.put16(0);
        out.put16(sign);
        out.put16(0);
        return Field::kOk;
    };
    if (rest == "NaN") return special(kNaN);
    if (rest == "Infinity" || rest == "Inf") return special(negative ? kNinf : kPinf);
    std::string digits;
    std::int64_t exponent = 0;
    bool point = false, any = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
            any = true;
            if (point) --exponent;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!any) return Field::kMismatch;
    if (i < s.size()) {
        if (s[i] != 'E' && s[i] != 'e') return Field::kMismatch;
        std::int64_t e = 0;
        const char* from = s.data() + i + 1;
        if (from < s.data() + s.size() && *from == '+') ++from;
        auto [end, ec] = std::from_chars(from, s.data() + s.size(), e);
        if (ec != std::errc() || end != s.data() + s.size() || e > 1'000'000 || e < -1'000'000) return Field::kMismatch;
        exponent += e;
    }
    const std::int64_t dscale = std::max<std::int64_t>(0, -exponent);
    if (dscale > 0x3FFF) return Field::kMismatch;
    // Digit j stands for digits[j] * 10^(exponent + L - 1 - j); group g holds the powers 4g..4g+3.
    const auto floor4 = [](std::int64_t p) { return p >= 0 ? p / 4 : -((-p + 3) / 4); };
    const std::int64_t top = exponent + static_cast<std::int64_t>(digits.size()) - 1;
    const std::int64_t gmax = floor4(top), gmin = floor4(exponent);
    if (gmax - gmin + 1 > 40'000) return Field::kMismatch;
    std::vector<std::uint16_t> groups(static_cast<std::size_t>(gmax - gmin + 1), 0);
    static constexpr std::uint16_t kPow[4] = {1, 10, 100, 1000};
    for (std::size_t j = 0; j < digits.size(); ++j) {
        const std::int64_t p = top - static_cast<std::int64_t>(j);
        const std::int64_t g = floor4(p);
        groups[static_cast<std::size_t>(gmax - g)] += static_cast<std::uint16_t>((digits[j] - '0') * kPow[p - 4 * g]);
    }
    std::size_t first = 0, last = groups.size();
    while (first < last && groups[first] == 0)
        ++first;
    while (last > first && groups[last - 1] == 0)
        --last;
    const std::int64_t weight = first == last ? 0 : gmax - static_cast<std::int64_t>(first);
    if (weight > INT16_MAX || weight < INT16_MIN) return Field::kMismatch;
    const std::size_t n = last - first;
    out.put32(static_cast<std::uint32_t>(8 + 2 * n));
    out.put16(static_cast<std::uint16_t>(n));
    out.put16(static_cast<std::uint16_t>(static_cast<std::int16_t>(weight)));
    out.put16(n == 0 || !negative ? kPos : kNeg);
    out.put16(static_cast<std::uint16_t>(dscale));
    for (std::size_t k = first; k < last; ++k)
        out.put16(groups[k]);
    return Field::kOk;
}

Field numeric(PyObject* obj, const ParamTypes& t, CopyOut& out) {
    if (PyLong_CheckExact(obj)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return Field::kMismatch;
        }
        char buf[24];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        return numeric_from_text(std::string_view(buf, static_cast<std::size_t>(end - buf)), out);
    }
    const int is = PyObject_IsInstance(obj, t.decimal);
    if (is < 0) return Field::kError;
    if (is == 0) return Field::kMismatch;
    PyRef text = PyRef::steal(PyObject_Str(obj));
    if (!text) return Field::kError;
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(text.get(), &n);
    if (s == nullptr) return Field::kError;
    return numeric_from_text(std::string_view(s, static_cast<std::size_t>(n)), out);
}

Field uuid(PyObject* obj, const ParamTypes& t, CopyOut& out) {
    const int is = PyObject_IsInstance(obj, t.uuid);
    if (is < 0) return Field::kError;
    if (is == 0) return Field::kMismatch;
    PyRef value = PyRef::steal(PyObject_GetAttrString(obj, "int"));
    if (!value) return Field::kError;
    if (!PyLong_Check(value.get())) return Field::kMismatch;
    unsigned char bytes[16];
#if PY_VERSION_HEX >= 0x030D0000
    const int r = _PyLong_AsByteArray(reinterpret_cast<PyLongObject*>(value.get()), bytes, 16, 0, 0, 1);
#else
    const int r = _PyLong_AsByteArray(reinterpret_cast<PyLongObject*>(value.get()), bytes, 16, 0, 0);
#endif
    if (r < 0) {
        PyErr_Clear();
        return Field::kMismatch;
    }
    out.put32(16);
    out.put(reinterpret_cast<const char*>(bytes), 16);
    return Field::kOk;
}

// timestamp takes a naive datetime, timestamptz an aware one (its instant): the other kind keeps its text meaning
// (the server ignores an offset for timestamp and reads a naive time in its TimeZone for timestamptz).
Field timestamp(PyObject* obj, bool with_zone, CopyOut& out) {
    if (!PyDateTime_Check(obj)) return Field::kMismatch;
    const bool aware = PyDateTime_DATE_GET_TZINFO(obj) != Py_None;
    if (aware != with_zone) return Field::kMismatch;
    std::int64_t micros = pg_days(obj) * kMicrosPerDay +
                          time_micros(PyDateTime_DATE_GET_HOUR(obj), PyDateTime_DATE_GET_MINUTE(obj),
                                      PyDateTime_DATE_GET_SECOND(obj), PyDateTime_DATE_GET_MICROSECOND(obj));
    if (aware) {
        PyRef offset = PyRef::steal(PyObject_CallMethod(obj, "utcoffset", nullptr));
        if (!offset) return Field::kError;
        if (!PyDelta_Check(offset.get())) return Field::kMismatch;
        micros -= delta_micros(offset.get());
    }
    out.put32(8);
    out.put64(static_cast<std::uint64_t>(micros));
    return Field::kOk;
}

Field json(PyObject* obj, bool jsonb, const ParamTypes& t, CopyOut& out) {
    if (PyUnicode_CheckExact(obj)) return put_text(obj, jsonb, out);
    if (!PyDict_Check(obj) && !PyList_Check(obj) && !PyTuple_Check(obj)) return Field::kMismatch;
    PyRef args = PyRef::steal(PyTuple_Pack(1, obj));
    if (!args) return Field::kError;
    PyRef text = PyRef::steal(PyObject_Call(t.json_dumps, args.get(), t.json_kwargs));
    if (!text) {
        PyErr_Clear();  // not JSON-able: the text path names the reason
        return Field::kMismatch;
    }
    return put_text(text.get(), jsonb, out);
}

}  // namespace

void CopyOut::grow(std::size_t need) {
    buf.resize(std::max({need, buf.size() * 2, std::size_t{4096}}));
}

bool has_binary_form(std::uint32_t oid) {
    switch (oid) {
        case kBool:
        case kBytea:
        case kName:
        case kInt8:
        case kInt2:
        case kInt4:
        case kText:
        case kJson:
        case kFloat4:
        case kFloat8:
        case kBpchar:
        case kVarchar:
        case kDate:
        case kTime:
        case kTimestamp:
        case kTimestamptz:
        case kInterval:
        case kNumeric:
        case kUuid:
        case kJsonb:
            return true;
        default:
            return false;
    }
}

std::string binary_type_name(std::uint32_t oid) {
    switch (oid) {
        case kBool:
            return "bool";
        case kBytea:
            return "bytea";
        case kName:
            return "name";
        case kInt8:
            return "int8";
        case kInt2:
            return "int2";
        case kInt4:
            return "int4";
        case kText:
            return "text";
        case kJson:
            return "json";
        case kFloat4:
            return "float4";
        case kFloat8:
            return "float8";
        case kBpchar:
            return "bpchar";
        case kVarchar:
            return "varchar";
        case kDate:
            return "date";
        case kTime:
            return "time";
        case kTimestamp:
            return "timestamp";
        case kTimestamptz:
            return "timestamptz";
        case kInterval:
            return "interval";
        case kNumeric:
            return "numeric";
        case kUuid:
            return "uuid";
        case kJsonb:
            return "jsonb";
        default:
            return "oid " + std::to_string(oid);
    }
}

const char* binary_python_types(std::uint32_t oid) {
    switch (oid) {
        case kBool:
            return "bool";
        case kBytea:
            return "bytes";
        case kInt2:
            return "int in -32768..32767";
        case kInt4:
            return "int in the 32-bit range";
        case kInt8:
            return "int in the 64-bit range";
        case kFloat4:
        case kFloat8:
            return "float or int";
        case kNumeric:
            return "Decimal or int";
        case kUuid:
            return "uuid.UUID";
        case kDate:
            return "date";
        case kTime:
            return "time without tzinfo";
        case kTimestamp:
            return "datetime without tzinfo";
        case kTimestamptz:
            return "datetime with tzinfo";
        case kInterval:
            return "timedelta";
        case kJson:
        case kJsonb:
            return "str, dict or list";
        default:
            return "str without NUL";
    }
}

Field write_binary_field(PyObject* obj, std::uint32_t oid, CopyOut& out) {
    switch (oid) {
        case kBool:
            if (obj != Py_True && obj != Py_False) return Field::kMismatch;
            out.put32(1);
            *out.room(1) = obj == Py_True ? 1 : 0;
            ++out.len;
            return Field::kOk;
        case kInt2:
        case kInt4:
        case kInt8:
            return integer(obj, oid, out);
        case kFloat4:
        case kFloat8:
            return floating(obj, oid, out);
        case kBytea:
            if (!PyBytes_CheckExact(obj)) return Field::kMismatch;
            return put_bytes(PyBytes_AS_STRING(obj), static_cast<std::size_t>(PyBytes_GET_SIZE(obj)), false, out);
        case kName:
        case kText:
        case kBpchar:
        case kVarchar:
            if (!PyUnicode_CheckExact(obj)) return Field::kMismatch;
            return put_text(obj, false, out);
        default:
            break;
    }
    const ParamTypes* t = types();
    if (t == nullptr) return Field::kError;
    switch (oid) {
        case kJson:
        case kJsonb:
            return json(obj, oid == kJsonb, *t, out);
        case kNumeric:
            return numeric(obj, *t, out);
        case kUuid:
            return uuid(obj, *t, out);
        case kDate:
            if (!PyDate_Check(obj) || PyDateTime_Check(obj)) return Field::kMismatch;
            out.put32(4);
            out.put32(static_cast<std::uint32_t>(static_cast<std::int32_t>(pg_days(obj))));
            return Field::kOk;
        case kTime:
            if (!PyTime_Check(obj) || PyDateTime_TIME_GET_TZINFO(obj) != Py_None) return Field::kMismatch;
            out.put32(8);
            out.put64(static_cast<std::uint64_t>(
                time_micros(PyDateTime_TIME_GET_HOUR(obj), PyDateTime_TIME_GET_MINUTE(obj),
                            PyDateTime_TIME_GET_SECOND(obj), PyDateTime_TIME_GET_MICROSECOND(obj))));
            return Field::kOk;
        case kTimestamp:
        case kTimestamptz:
            return timestamp(obj, oid == kTimestamptz, out);
        case kInterval: {
            if (!PyDelta_Check(obj)) return Field::kMismatch;
            const std::int64_t micros = static_cast<std::int64_t>(PyDateTime_DELTA_GET_SECONDS(obj)) * 1'000'000 +
                                        PyDateTime_DELTA_GET_MICROSECONDS(obj);
            out.put32(16);
            out.put64(static_cast<std::uint64_t>(micros));
            out.put32(static_cast<std::uint32_t>(PyDateTime_DELTA_GET_DAYS(obj)));
            out.put32(0);  // months
            return Field::kOk;
        }
        default:
            return Field::kMismatch;
    }
}

}  // namespace slipstream::python
