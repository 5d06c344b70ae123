// Python records to COPY data: text lines without a store::Value per cell for the common types, or PostgreSQL's
// binary COPY format written in place (copy_binary.h), a piece at a time.
#include "copy_records.h"

#include <charconv>
#include <cstdint>
#include <string_view>
#include <utility>

#include "db_values.h"
#include "py_ref.h"
#include "store/copy_text.h"
#include "store/value.h"

namespace slipstream::python {
namespace {

// One COPY text field (tab-separated; the caller ends the row with a newline).
Field text_field(PyObject* obj, Py_ssize_t column, std::string& out) {
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

}  // namespace

CopyRecordsEncoder::CopyRecordsEncoder(Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                                       std::vector<std::uint32_t> oids, std::vector<std::string> names, bool strict)
    : width_(width),
      columns_(columns),
      by_name_types_(by_name_types),
      oids_(std::move(oids)),
      names_(std::move(names)),
      strict_(strict) {}

void CopyRecordsEncoder::mismatch_error(PyObject* value, Py_ssize_t column) const {
    const auto c = static_cast<std::size_t>(column);
    const std::string name = c < names_.size() ? "\"" + names_[c] + "\"" : std::to_string(c + 1);
    PyErr_Format(PyExc_TypeError,
                 "copy_records_to_table: column %s (%s): a %s value does not fit the binary COPY format (it takes %s); "
                 "records given as a list or tuple are sent as COPY text instead",
                 name.c_str(), binary_type_name(oids_[c]).c_str(), Py_TYPE(value)->tp_name,
                 binary_python_types(oids_[c]));
}

Field CopyRecordsEncoder::field(PyObject* value, Py_ssize_t column, std::string& out, CopyOut& bin) {
    if (!binary()) return text_field(value, column, out);
    if (value == Py_None) {
        bin.put32(0xFFFFFFFFu);  // -1: NULL
        return Field::kOk;
    }
    Field f = write_binary_field(value, oids_[static_cast<std::size_t>(column)], bin);
    if (f == Field::kMismatch && strict_) {
        mismatch_error(value, column);
        return Field::kError;
    }
    return f;
}

Field CopyRecordsEncoder::record(PyObject* rec, std::string& out, CopyOut& bin) {
    bool by_name = false;
    if (columns_ != Py_None && !PyTuple_Check(rec) && !PyList_Check(rec)) {
        const int is = PyObject_IsInstance(rec, by_name_types_);
        if (is < 0) return Field::kError;
        by_name = is == 1;
    }
    if (by_name) {
        const Py_ssize_t n = PyTuple_GET_SIZE(columns_);
        if (binary()) bin.put16(static_cast<std::uint16_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyRef value = PyRef::steal(PyObject_GetItem(rec, PyTuple_GET_ITEM(columns_, i)));
            if (!value) return Field::kError;
            Field f = field(value.get(), i, out, bin);
            if (f != Field::kOk) return f;
        }
    } else {
        PyRef fast = PyRef::steal(PySequence_Fast(rec, "copy_records_to_table: a record must be a sequence"));
        if (!fast) return Field::kError;
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
        if (n != width_) {
            PyErr_Format(PyExc_ValueError, "copy_records_to_table: a record has %zd values, expected %zd", n, width_);
            return Field::kError;
        }
        PyObject** items = PySequence_Fast_ITEMS(fast.get());
        if (binary()) bin.put16(static_cast<std::uint16_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i) {
            Field f = field(items[i], i, out, bin);
            if (f != Field::kOk) return f;
        }
    }
    if (!binary()) out.push_back('\n');
    return Field::kOk;
}

Field CopyRecordsEncoder::encode(PyObject* source, std::size_t max_bytes, std::string& out) {
    if (columns_ != Py_None && !PyTuple_Check(columns_)) {
        PyErr_SetString(PyExc_TypeError, "copy_records_to_table: columns must be a tuple of names");
        return Field::kError;
    }
    if (binary() && width_ > INT16_MAX) {
        PyErr_SetString(PyExc_ValueError, "copy_records_to_table: a binary COPY takes at most 32767 columns");
        return Field::kError;
    }
    // Binary fields go through a raw pointer into `out`, grown ahead (trimmed at the end); text appends to it.
    CopyOut bin{out, out.size()};
    if (binary()) out.resize(out.size() + std::min<std::size_t>(max_bytes, 1 << 22) + 4096);
    auto done = [&](Field f) {
        if (binary()) bin.finish();
        return f;
    };
    if (binary() && !started_) {
        static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // 11 bytes with its NUL
        bin.put(kSignature, sizeof kSignature);
        bin.put32(0);  // flags
        bin.put32(0);  // header extension length
    }
    started_ = true;
    const bool indexed = PyList_CheckExact(source) || PyTuple_CheckExact(source);
    while ((binary() ? bin.len : out.size()) < max_bytes) {
        PyRef rec;
        if (indexed) {
            const Py_ssize_t i = static_cast<Py_ssize_t>(records_);
            if (i < PySequence_Fast_GET_SIZE(source)) rec = PyRef::borrow(PySequence_Fast_GET_ITEM(source, i));
        } else {
            rec = PyRef::steal(PyIter_Next(source));
            if (!rec && PyErr_Occurred()) return done(Field::kError);
        }
        if (!rec) {
            ended_ = true;
            if (binary()) bin.put16(0xFFFF);  // -1: the end of the data
            break;
        }
        Field f = record(rec.get(), out, bin);
        if (f == Field::kError) prefix_record_error(records_);
        if (f != Field::kOk) return done(f);
        ++records_;
    }
    return done(Field::kOk);
}

bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out) {
    CopyRecordsEncoder encoder(width, columns, by_name_types, {}, {}, false);
    PyRef source = PyList_CheckExact(records) || PyTuple_CheckExact(records) ? PyRef::borrow(records)
                                                                             : PyRef::steal(PyObject_GetIter(records));
    if (!source) return false;
    return encoder.encode(source.get(), SIZE_MAX, out) == Field::kOk;
}

int encode_copy_records_binary(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                               const std::vector<std::uint32_t>& oids, std::string& out) {
    if (static_cast<Py_ssize_t>(oids.size()) != width || oids.empty()) return 0;
    for (std::uint32_t oid : oids) {
        if (!has_binary_form(oid)) return 0;
    }
    CopyRecordsEncoder encoder(width, columns, by_name_types, oids, {}, false);
    PyRef source = PyList_CheckExact(records) || PyTuple_CheckExact(records) ? PyRef::borrow(records)
                                                                             : PyRef::steal(PyObject_GetIter(records));
    if (!source) return -1;
    Field f = encoder.encode(source.get(), SIZE_MAX, out);
    if (f == Field::kError) return -1;
    return f == Field::kOk ? 1 : 0;
}

}  // namespace slipstream::python
