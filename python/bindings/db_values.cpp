// Python <-> store values for NativeDatabase: parameters by Python type, cells by their store kind.
#include "db_values.h"

// clang-format off
#include <datetime.h>
// clang-format on

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "py_ref.h"
#include "store/array_cell.h"
#include "store/column_type.h"

namespace slipstream::python {

namespace {

PyObject* attribute_of(const char* module, const char* name) {
    PyRef mod = PyRef::steal(PyImport_ImportModule(module));
    return mod ? PyObject_GetAttrString(mod.get(), name) : nullptr;
}

// The Python text of `obj` (str(obj) or obj.isoformat() or json.dumps(obj)) into `out`; false on error.
bool text_of(PyObject* produced, std::string& out) {
    if (produced == nullptr) return false;
    PyRef owned = PyRef::steal(produced);
    if (!PyUnicode_Check(produced)) {
        PyErr_SetString(PyExc_TypeError, "expected a str");
        return false;
    }
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(produced, &n);
    if (s == nullptr) return false;
    out.assign(s, static_cast<std::size_t>(n));
    return true;
}

bool unsupported(std::size_t index, PyObject* obj) {
    PyErr_Format(PyExc_TypeError, "query parameter $%zu: %s values are not supported", index + 1,
                 Py_TYPE(obj)->tp_name);
    return false;
}

// json.dumps failed (a member it cannot write): a TypeError naming the parameter and json's reason.
bool not_json(std::size_t index) {
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    PyErr_Fetch(&type, &value, &trace);
    PyRef reason = PyRef::steal(value != nullptr ? PyObject_Str(value) : nullptr);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    PyErr_Clear();
    const char* why = reason ? PyUnicode_AsUTF8(reason.get()) : nullptr;
    if (why == nullptr) PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "query parameter $%zu: cannot be written as JSON: %s", index + 1,
                 why != nullptr ? why : "unknown reason");
    return false;
}

// One parameter; false with the exception set.
bool param_from_python(PyObject* obj, std::size_t index, const ParamTypes& types, store::Value& out) {
    if (obj == Py_None) {
        out = std::monostate{};
        return true;
    }
    if (PyBool_Check(obj)) {
        out = obj == Py_True;
        return true;
    }
    if (PyLong_Check(obj)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow != 0) {
            PyErr_Format(PyExc_ValueError, "query parameter $%zu: int out of the 64-bit range", index + 1);
            return false;
        }
        if (v == -1 && PyErr_Occurred()) return false;
        out = static_cast<std::int64_t>(v);
        return true;
    }
    if (PyFloat_Check(obj)) {
        out = PyFloat_AS_DOUBLE(obj);
        return true;
    }
    if (PyUnicode_Check(obj)) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (s == nullptr) return false;
        out = std::string(s, static_cast<std::size_t>(n));
        return true;
    }
    if (PyBytes_Check(obj) || PyByteArray_Check(obj) || PyMemoryView_Check(obj)) {
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_CONTIG_RO) != 0) return false;
        out = store::Bytes{std::string(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len))};
        PyBuffer_Release(&view);
        return true;
    }
    std::string text;
    int is_decimal = PyObject_IsInstance(obj, types.decimal);
    int is_uuid = is_decimal == 1 ? 0 : PyObject_IsInstance(obj, types.uuid);
    if (is_decimal < 0 || is_uuid < 0) return false;
    if (is_decimal == 1 || is_uuid == 1) {
        if (!text_of(PyObject_Str(obj), text)) return false;
    } else if (PyDate_Check(obj) || PyTime_Check(obj)) {  // datetime is a date
        if (!text_of(PyObject_CallMethod(obj, "isoformat", nullptr), text)) return false;
    } else if (PyDelta_Check(obj)) {
        text = std::to_string(PyDateTime_DELTA_GET_DAYS(obj)) + " days " +
               std::to_string(PyDateTime_DELTA_GET_SECONDS(obj)) + " seconds " +
               std::to_string(PyDateTime_DELTA_GET_MICROSECONDS(obj)) + " microseconds";
    } else if (PyDict_Check(obj) || PyList_Check(obj) || PyTuple_Check(obj)) {
        PyRef args = PyRef::steal(PyTuple_Pack(1, obj));
        if (!args) return false;
        if (!text_of(PyObject_Call(types.json_dumps, args.get(), types.json_kwargs), text)) return not_json(index);
    } else {
        return unsupported(index, obj);
    }
    out = std::move(text);
    return true;
}

PyObject* str_of(std::string_view s) {
    return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
}

PyObject* int_of(std::string_view text) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) return PyLong_FromLongLong(v);
    std::string copy(text);  // wider than int64 (PostgreSQL numeric printed as an int never comes here; safe)
    return PyLong_FromString(copy.c_str(), nullptr, 10);
}

// A cell or array element of `kind` from its canonical bytes (store/column_type.h).
PyObject* scalar(store::ColumnType kind, std::string_view t) {
    using store::ColumnType;
    switch (kind) {
        case ColumnType::kNull:
            Py_RETURN_NONE;
        case ColumnType::kBool:
            return PyBool_FromLong(t == "t" || t == "true" || t == "1" ? 1 : 0);
        case ColumnType::kInt:
            return int_of(t);
        case ColumnType::kFloat: {
            double d = 0;
            // from_chars reads "NaN", "Infinity" and "-Infinity" as strtod does, without the locale.
            auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
            if (ec == std::errc() && end == t.data() + t.size()) return PyFloat_FromDouble(d);
            return str_of(t);
        }
        case ColumnType::kBytes:
            return PyBytes_FromStringAndSize(t.data(), static_cast<Py_ssize_t>(t.size()));
        default:
            return str_of(t);
    }
}

// An array cell as nested lists of scalar()s.
class PyArrayBuilder final : public store::ArrayCellVisitor {
  public:
    explicit PyArrayBuilder(store::ColumnType element) : element_(element) {}
    ~PyArrayBuilder() override {
        for (PyObject* list : stack_)
            Py_DECREF(list);
    }
    base::Status begin() override {
        PyObject* list = PyList_New(0);
        if (list == nullptr) return python_failed();
        stack_.push_back(list);
        return base::Status::ok();
    }
    base::Status end() override {
        PyObject* done = stack_.back();
        stack_.pop_back();
        if (stack_.empty()) {
            result_ = done;
            return base::Status::ok();
        }
        return add(done);
    }
    base::Status null() override {
        Py_INCREF(Py_None);
        return add(Py_None);
    }
    base::Status element(std::string_view bytes) override {
        PyObject* value = scalar(element_, bytes);
        return value != nullptr ? add(value) : python_failed();
    }
    /// The outermost list (new reference), or null.
    PyObject* take() { return std::exchange(result_, nullptr); }

  private:
    static base::Status python_failed() { return base::Status::internal("python error"); }
    // Steals `value`.
    base::Status add(PyObject* value) {
        const int rc = PyList_Append(stack_.back(), value);
        Py_DECREF(value);
        return rc == 0 ? base::Status::ok() : python_failed();
    }

    store::ColumnType element_;
    std::vector<PyObject*> stack_;
    PyObject* result_ = nullptr;
};

PyObject* cell(const store::ResultSet& rs, std::size_t row, std::size_t col) {
    const store::ColumnType kind = rs.type(row, col);
    if (kind != store::ColumnType::kArray) return scalar(kind, rs.text(row, col));
    PyArrayBuilder builder(rs.columns()[col].element);
    base::Status s = store::read_array_cell(rs.text(row, col), builder);
    PyObject* list = builder.take();
    if (s.is_ok() && list != nullptr) return list;
    Py_XDECREF(list);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed array value");
    return nullptr;
}

}  // namespace

const ParamTypes* param_types() {
    static ParamTypes types;
    static bool loaded = false;
    if (loaded) return &types;
    if (PyDateTimeAPI == nullptr) {
        PyDateTime_IMPORT;
        if (PyDateTimeAPI == nullptr) return nullptr;
    }
    types.decimal = attribute_of("decimal", "Decimal");
    types.uuid = types.decimal ? attribute_of("uuid", "UUID") : nullptr;
    types.json_dumps = types.uuid ? attribute_of("json", "dumps") : nullptr;
    if (types.json_dumps == nullptr) return nullptr;
    types.json_kwargs = Py_BuildValue("{s:(ss),s:O}", "separators", ",", ":", "ensure_ascii", Py_False);
    if (types.json_kwargs == nullptr) return nullptr;
    loaded = true;
    return &types;
}

bool params_from_python(PyObject* sequence, store::Params& out) {
    const ParamTypes* types = param_types();
    if (types == nullptr) return false;
    PyRef fast = PyRef::steal(PySequence_Fast(sequence, "query parameters must be a sequence"));
    if (!fast) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
    PyObject** items = PySequence_Fast_ITEMS(fast.get());
    out.clear();
    out.resize(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (!param_from_python(items[i], static_cast<std::size_t>(i), *types, out[static_cast<std::size_t>(i)]))
            return false;
    }
    return true;
}

bool value_from_python(PyObject* obj, std::size_t index, store::Value& out) {
    const ParamTypes* types = param_types();
    return types != nullptr && param_from_python(obj, index, *types, out);
}

void prefix_record_error(std::size_t record) {
    // The same exception type, its message prefixed with the record's position.
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    PyErr_Fetch(&type, &value, &trace);
    PyErr_NormalizeException(&type, &value, &trace);
    PyRef text = PyRef::steal(value != nullptr ? PyObject_Str(value) : nullptr);
    if (text) {
        PyErr_Format(type, "record %zu: %U", record, text.get());
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(trace);
    } else {
        PyErr_Restore(type, value, trace);
    }
}

PyObject* query_payload(const store::ResultSet& rs) {
    const std::size_t ncols = rs.column_count(), nrows = rs.row_count();
    PyRef columns = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(ncols)));
    if (!columns) return nullptr;
    for (std::size_t c = 0; c < ncols; ++c) {
        const store::Column& col = rs.columns()[c];
        // An array column's kind is its element kind with "[]" ("int[]", "date[]").
        std::string kind(store::column_type_name(col.type == store::ColumnType::kArray ? col.element : col.type));
        if (col.type == store::ColumnType::kArray) kind += "[]";
        PyObject* pair = Py_BuildValue("(NN)", str_of(col.name), str_of(kind));
        if (pair == nullptr) return nullptr;
        PyTuple_SET_ITEM(columns.get(), static_cast<Py_ssize_t>(c), pair);
    }
    PyRef rows = PyRef::steal(PyList_New(static_cast<Py_ssize_t>(nrows)));
    if (!rows) return nullptr;
    for (std::size_t r = 0; r < nrows; ++r) {
        PyObject* row = PyTuple_New(static_cast<Py_ssize_t>(ncols));
        if (row == nullptr) return nullptr;
        PyList_SET_ITEM(rows.get(), static_cast<Py_ssize_t>(r), row);
        for (std::size_t c = 0; c < ncols; ++c) {
            PyObject* value = cell(rs, r, c);
            if (value == nullptr) return nullptr;
            PyTuple_SET_ITEM(row, static_cast<Py_ssize_t>(c), value);
        }
    }
    return Py_BuildValue("(OOLN)", columns.get(), rows.get(), static_cast<long long>(rs.affected_rows()),
                         str_of(rs.command()));
}

PyObject* error_payload(const base::Status& status, const store::DbError& error) {
    const bool from_statement = !error.message.empty();
    const std::string& message = from_statement ? error.message : status.message();
    return Py_BuildValue("(NNNNNiiOO)", str_of(base::status_code_name(status.code())), str_of(message),
                         str_of(error.sqlstate), str_of(error.detail), str_of(error.hint), error.position,
                         error.native_code, error.connection_lost ? Py_True : Py_False,
                         from_statement ? Py_True : Py_False);
}

}  // namespace slipstream::python
