// NativeStreamValidator: a thin wrapper; the chunks are validated with the GIL held (each costs its own length).
#include "py_structured.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agent/structured/stream_validator.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

using agent::structured::StreamState;
using agent::structured::StreamValidator;

// A snapshot as Python objects (dict, list, str, int, float, bool, None); depth bounded by the parse limits.
PyObject* to_python(const json::Value& v) {
    switch (v.type()) {
        case json::Type::kNull:
            Py_RETURN_NONE;
        case json::Type::kBool:
            return PyBool_FromLong(v.as_bool() ? 1 : 0);
        case json::Type::kInt:
            return PyLong_FromLongLong(v.as_int());
        case json::Type::kUint:
            return PyLong_FromUnsignedLongLong(v.as_uint());
        case json::Type::kBigInt: {
            const std::string digits(v.as_decimal());
            return PyLong_FromString(digits.c_str(), nullptr, 10);
        }
        case json::Type::kDouble:
            return PyFloat_FromDouble(v.as_double());
        case json::Type::kString: {
            const std::string_view s = v.as_string();
            return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
        }
        case json::Type::kArray: {
            PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.items().size()));
            if (list == nullptr) return nullptr;
            Py_ssize_t i = 0;
            for (const json::Value& item : v.items()) {
                PyObject* o = to_python(item);
                if (o == nullptr) {
                    Py_DECREF(list);
                    return nullptr;
                }
                PyList_SET_ITEM(list, i++, o);
            }
            return list;
        }
        case json::Type::kObject: {
            PyObject* dict = PyDict_New();
            if (dict == nullptr) return nullptr;
            for (const json::Member& m : v.members()) {
                PyObject* key = PyUnicode_DecodeUTF8(m.key.data(), static_cast<Py_ssize_t>(m.key.size()), "strict");
                PyObject* value = key == nullptr ? nullptr : to_python(m.value);
                const int rc = value == nullptr ? -1 : PyDict_SetItem(dict, key, value);
                Py_XDECREF(key);
                Py_XDECREF(value);
                if (rc != 0) {
                    Py_DECREF(dict);
                    return nullptr;
                }
            }
            return dict;
        }
    }
    Py_RETURN_NONE;
}

class NativeStreamValidator {
  public:
    NativeStreamValidator(const std::string& schema_json, std::size_t max_depth, std::size_t max_string_bytes) {
        json::ParseOptions options;
        options.max_depth = max_depth;
        options.max_string_bytes = max_string_bytes;
        base::Result<std::unique_ptr<StreamValidator>> v = StreamValidator::create(schema_json, options);
        if (!v.is_ok()) throw std::invalid_argument(v.status().message());
        validator_ = std::move(v).value();
    }

    int feed(nb::handle chunk) {
        std::string_view data;
        if (PyBytes_Check(chunk.ptr())) {
            data = std::string_view(PyBytes_AS_STRING(chunk.ptr()),
                                    static_cast<std::size_t>(PyBytes_GET_SIZE(chunk.ptr())));
        } else if (PyUnicode_Check(chunk.ptr())) {
            Py_ssize_t n = 0;
            const char* s = PyUnicode_AsUTF8AndSize(chunk.ptr(), &n);
            if (s == nullptr) throw nb::python_error();
            data = std::string_view(s, static_cast<std::size_t>(n));
        } else {
            throw nb::type_error("feed() takes bytes or str");
        }
        return static_cast<int>(validator_->feed(data));
    }

    int finish() { return static_cast<int>(validator_->finish()); }

    nb::object failure() const {
        if (validator_->state() != StreamState::kInvalid) return nb::none();
        const auto& f = validator_->failure();
        return nb::make_tuple(f.offset, f.pointer, f.keyword, f.message);
    }

    nb::tuple snapshot_value() {
        std::vector<std::string> partial;
        const json::Value* v = validator_->snapshot(&partial);
        if (v == nullptr) return nb::make_tuple(nb::none(), nb::cast(partial));
        PyObject* o = to_python(*v);
        if (o == nullptr) throw nb::python_error();
        return nb::make_tuple(nb::steal(o), nb::cast(partial));
    }

    nb::tuple snapshot() {
        std::string text;
        std::vector<std::string> partial;
        const bool any = validator_->snapshot_json(text, &partial);
        return nb::make_tuple(any ? nb::cast(text) : nb::none(), nb::cast(partial));
    }

  private:
    std::unique_ptr<StreamValidator> validator_;
};

}  // namespace

void register_structured(nb::module_& m) {
    nb::class_<NativeStreamValidator>(m, "NativeStreamValidator")
        .def(nb::init<const std::string&, std::size_t, std::size_t>(), nb::arg("schema_json"), nb::arg("max_depth"),
             nb::arg("max_string_bytes"))
        .def("feed", &NativeStreamValidator::feed, nb::arg("chunk"))
        .def("finish", &NativeStreamValidator::finish)
        .def("failure", &NativeStreamValidator::failure)
        .def("snapshot", &NativeStreamValidator::snapshot)
        .def("snapshot_value", &NativeStreamValidator::snapshot_value);
}

}  // namespace slipstream::python
