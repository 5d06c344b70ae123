// Python records to COPY data: text lines without a store::Value per cell for the common types, or PostgreSQL's
// binary COPY format when every column's type has a binary form here.
#include "copy_records.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "db_values.h"
#include "py_ref.h"
#include "store/copy_text.h"
#include "store/value.h"

namespace slipstream::python {
namespace {

// What writing one field did.
enum class Field : std::uint8_t { kOk, kError, kMismatch };  // kError: a Python exception is set

// COPY text: tab-separated fields, newline-ended rows.
struct TextFormat {
    void begin_row(Py_ssize_t, std::string&) const {}
    void end_row(std::string& out) const { out.push_back('\n'); }

    Field field(PyObject* obj, Py_ssize_t column, std::string& out) const {
        if (column > 0) out.push_back('\t');
        if (obj == Py_None) {
            out += "\\N";
            return Field::kOk;
        }
        if (obj == Py_True || obj == Py_False) {
            out.push_back(obj == Py_True ? 't' : 'f');
            return Field::kOk;
        }
        if (PyLong_CheckExact(obj)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
            if (overflow == 0 && !(v == -1 && PyErr_Occurred())) {
                char buf[24];
                auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
                out.append(buf, end);
                return Field::kOk;
            }
            PyErr_Clear();  // the general conversion reports it
        } else if (PyFloat_CheckExact(obj)) {
            store::append_copy_text_double(PyFloat_AS_DOUBLE(obj), out);
            return Field::kOk;
        } else if (PyUnicode_CheckExact(obj)) {
            Py_ssize_t n = 0;
            const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
            if (s == nullptr) return Field::kError;
            store::append_copy_text_escaped(std::string_view(s, static_cast<std::size_t>(n)), out);
            return Field::kOk;
        }
        store::Value value;
        if (!value_from_python(obj, static_cast<std::size_t>(column), value)) return Field::kError;
        store::encode_copy_text_value(value, out);
        return Field::kOk;
    }
};

template <typename T>
void append_be(std::string& out, T v) {
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    char buf[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i)
        buf[i] = static_cast<char>((u >> (8 * (sizeof(T) - 1 - i))) & 0xff);
    out.append(buf, sizeof(T));
}

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
    kJsonb = 3802,
};

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
        case kJsonb:
            return true;
        default:
            return false;
    }
}

// PostgreSQL's binary COPY: a field count per row, each field its length (-1: NULL) and its bytes. Only values of
// the column's own Python type are written; anything else is a mismatch (the caller writes text instead, where the
// server judges the value as it would any text).
struct BinaryFormat {
    const std::vector<std::uint32_t>& oids;

    void begin_row(Py_ssize_t n, std::string& out) const { append_be(out, static_cast<std::int16_t>(n)); }
    void end_row(std::string&) const {}

    Field field(PyObject* obj, Py_ssize_t column, std::string& out) const {
        if (obj == Py_None) {
            append_be(out, std::int32_t{-1});
            return Field::kOk;
        }
        const std::uint32_t oid = oids[static_cast<std::size_t>(column)];
        switch (oid) {
            case kBool:
                if (obj != Py_True && obj != Py_False) return Field::kMismatch;
                append_be(out, std::int32_t{1});
                out.push_back(obj == Py_True ? 1 : 0);
                return Field::kOk;
            case kInt2:
            case kInt4:
            case kInt8:
                return integer(obj, oid, out);
            case kFloat4:
            case kFloat8: {
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
                    append_be(out, std::int32_t{4});
                    append_be(out, std::bit_cast<std::uint32_t>(static_cast<float>(d)));
                } else {
                    append_be(out, std::int32_t{8});
                    append_be(out, std::bit_cast<std::uint64_t>(d));
                }
                return Field::kOk;
            }
            case kBytea: {
                if (!PyBytes_CheckExact(obj)) return Field::kMismatch;
                return bytes(PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj), false, out);
            }
            default: {  // text kinds, json, jsonb: UTF-8 text (jsonb with its version byte)
                if (!PyUnicode_CheckExact(obj)) return Field::kMismatch;
                Py_ssize_t n = 0;
                const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
                if (s == nullptr) return Field::kError;
                if (std::memchr(s, 0, static_cast<std::size_t>(n)) != nullptr) return Field::kMismatch;
                return bytes(s, n, oid == kJsonb, out);
            }
        }
    }

    static Field integer(PyObject* obj, std::uint32_t oid, std::string& out) {
        if (!PyLong_CheckExact(obj)) return Field::kMismatch;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return Field::kMismatch;
        }
        if (oid == kInt2) {
            if (v < INT16_MIN || v > INT16_MAX) return Field::kMismatch;
            append_be(out, std::int32_t{2});
            append_be(out, static_cast<std::int16_t>(v));
        } else if (oid == kInt4) {
            if (v < INT32_MIN || v > INT32_MAX) return Field::kMismatch;
            append_be(out, std::int32_t{4});
            append_be(out, static_cast<std::int32_t>(v));
        } else {
            append_be(out, std::int32_t{8});
            append_be(out, static_cast<std::int64_t>(v));
        }
        return Field::kOk;
    }

    static Field bytes(const char* data, Py_ssize_t n, bool jsonb, std::string& out) {
        if (n > INT32_MAX - 1) return Field::kMismatch;
        append_be(out, static_cast<std::int32_t>(n + (jsonb ? 1 : 0)));
        if (jsonb) out.push_back(1);  // jsonb's binary format version
        out.append(data, static_cast<std::size_t>(n));
        return Field::kOk;
    }
};

void wrong_width(Py_ssize_t got, Py_ssize_t width) {
    PyErr_Format(PyExc_ValueError, "copy_records_to_table: a record has %zd values, expected %zd", got, width);
}

// One record in `format`: Field::kOk, kError (exception set) or kMismatch.
template <typename Format>
Field append_record(const Format& format, PyObject* record, Py_ssize_t width, PyObject* columns, bool by_name,
                    std::string& out) {
    if (by_name) {
        const Py_ssize_t n = PyTuple_GET_SIZE(columns);
        format.begin_row(n, out);
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyRef value = PyRef::steal(PyObject_GetItem(record, PyTuple_GET_ITEM(columns, i)));
            if (!value) return Field::kError;
            Field f = format.field(value.get(), i, out);
            if (f != Field::kOk) return f;
        }
        format.end_row(out);
        return Field::kOk;
    }
    PyRef fast = PyRef::steal(PySequence_Fast(record, "copy_records_to_table: a record must be a sequence"));
    if (!fast) return Field::kError;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
    if (n != width) {
        wrong_width(n, width);
        return Field::kError;
    }
    PyObject** items = PySequence_Fast_ITEMS(fast.get());
    format.begin_row(n, out);
    for (Py_ssize_t i = 0; i < n; ++i) {
        Field f = format.field(items[i], i, out);
        if (f != Field::kOk) return f;
    }
    format.end_row(out);
    return Field::kOk;
}

// Every record in `format`: kOk, kError (exception set, naming the record) or kMismatch.
template <typename Format>
Field append_records(const Format& format, PyObject* records, Py_ssize_t width, PyObject* columns,
                     PyObject* by_name_types, std::size_t first_record, std::string& out) {
    const bool named = columns != Py_None;
    if (named && !PyTuple_Check(columns)) {
        PyErr_SetString(PyExc_TypeError, "copy_records_to_table: columns must be a tuple of names");
        return Field::kError;
    }
    PyRef it = PyRef::steal(PyObject_GetIter(records));
    if (!it) return Field::kError;
    for (std::size_t index = 0;; ++index) {
        PyRef record = PyRef::steal(PyIter_Next(it.get()));
        if (!record) return PyErr_Occurred() ? Field::kError : Field::kOk;
        bool by_name = false;
        if (named && !PyTuple_Check(record.get()) && !PyList_Check(record.get())) {
            int is = PyObject_IsInstance(record.get(), by_name_types);
            if (is < 0) return Field::kError;
            by_name = is == 1;
        }
        Field f = append_record(format, record.get(), width, columns, by_name, out);
        if (f == Field::kError) prefix_record_error(first_record + index);
        if (f != Field::kOk) return f;
    }
}

}  // namespace

bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out) {
    return append_records(TextFormat{}, records, width, columns, by_name_types, 0, out) == Field::kOk;
}

int encode_copy_records_binary(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                               const std::vector<std::uint32_t>& oids, bool header, bool trailer,
                               std::size_t first_record, std::string& out) {
    if (static_cast<Py_ssize_t>(oids.size()) != width) return 0;
    for (std::uint32_t oid : oids) {
        if (!has_binary_form(oid)) return 0;
    }
    if (header) {
        static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // 11 bytes with its NUL
        out.append(kSignature, sizeof kSignature);
        append_be(out, std::int32_t{0});  // flags
        append_be(out, std::int32_t{0});  // header extension length
    }
    Field f = append_records(BinaryFormat{oids}, records, width, columns, by_name_types, first_record, out);
    if (f == Field::kError) return -1;
    if (f == Field::kMismatch) return 0;
    if (trailer) append_be(out, std::int16_t{-1});
    return 1;
}

}  // namespace slipstream::python
