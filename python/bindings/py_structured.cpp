// NativeStreamValidator: a thin wrapper; the chunks are validated with the GIL held (each costs its own length).
#include "py_structured.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
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

// The value so far as live Python objects, updated in place as events arrive (the GIL is held: feed() runs on the
// Python thread). An open string is materialised into its slot when asked.
class PartialValue final : public agent::structured::JsonEvents {
  public:
    ~PartialValue() override {
        Py_XDECREF(root_);
        for (Frame& f : frames_)
            Py_XDECREF(f.key);
    }

    base::Status begin_object() override { return open(PyDict_New(), true); }
    base::Status begin_array() override { return open(PyList_New(0), false); }
    base::Status end_object() override { return close(); }
    base::Status end_array() override { return close(); }

    base::Status key(std::string_view piece, bool last) override {
        Frame& f = frames_.back();
        f.key_text.append(piece);
        if (!last) return base::Status::ok();
        Py_XDECREF(f.key);
        f.key = decode(f.key_text);
        f.key_text.clear();
        return f.key != nullptr ? base::Status::ok() : failed();
    }

    base::Status string(std::string_view piece, bool last) override {
        if (!in_string_) {
            in_string_ = true;
            text_.clear();
            SLIPSTREAM_RETURN_IF_ERROR(place(PyUnicode_FromStringAndSize("", 0)));
        }
        text_.append(piece);
        if (!last) return base::Status::ok();
        in_string_ = false;
        return settle_string();
    }

    base::Status number(std::string_view text) override {
        PyObject* v = nullptr;
        const std::string t(text);
        if (t.find_first_of(".eE") == std::string::npos) {
            v = PyLong_FromString(t.c_str(), nullptr, 10);
        } else {
            v = PyFloat_FromDouble(std::strtod(t.c_str(), nullptr));
        }
        return place(v);
    }
    base::Status boolean(bool value) override { return place(PyBool_FromLong(value ? 1 : 0)); }
    base::Status null() override {
        Py_INCREF(Py_None);
        return place(Py_None);
    }

    // (the value so far or None, [JSON pointers of the open containers and string]).
    nb::tuple snapshot() {
        if (in_string_ && !settle_string().is_ok()) throw nb::python_error();
        std::vector<std::string> pointers;
        std::string pointer;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            pointers.push_back(pointer);
            if (i + 1 < frames_.size() || in_string_) {
                pointer.push_back('/');
                const Frame& f = frames_[i];
                pointer += f.dict ? f.key_name : std::to_string(PyList_GET_SIZE(f.container) - 1);
            }
        }
        if (in_string_) pointers.push_back(pointer);
        nb::object root = root_ != nullptr ? nb::borrow(root_) : nb::none();
        return nb::make_tuple(root, nb::cast(pointers));
    }

  private:
    struct Frame {
        PyObject* container = nullptr;  // borrowed: owned by its parent (or root_)
        bool dict = false;
        PyObject* key = nullptr;  // the member whose value comes next (dicts)
        std::string key_text;
        std::string key_name;  // the last placed member's key, as pointer text
    };

    static PyObject* decode(const std::string& s) {
        return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
    }
    static base::Status failed() { return base::Status::internal("python error"); }

    // Puts a new value (a reference it steals) where the next value goes; the open string's slot is remembered.
    base::Status place(PyObject* v) {
        if (v == nullptr) return failed();
        if (frames_.empty()) {
            Py_XDECREF(root_);
            root_ = v;
            return base::Status::ok();
        }
        Frame& f = frames_.back();
        int rc = 0;
        if (f.dict) {
            rc = PyDict_SetItem(f.container, f.key, v);
            std::string name;
            Py_ssize_t n = 0;
            const char* s = PyUnicode_AsUTF8AndSize(f.key, &n);
            if (s != nullptr) {
                name.clear();
                for (Py_ssize_t i = 0; i < n; ++i) {
                    if (s[i] == '~')
                        name += "~0";
                    else if (s[i] == '/')
                        name += "~1";
                    else
                        name.push_back(s[i]);
                }
            }
            f.key_name = std::move(name);
        } else {
            rc = PyList_Append(f.container, v);
        }
        Py_DECREF(v);
        return rc == 0 ? base::Status::ok() : failed();
    }

    // The open string's text into its slot (the last placed value of the innermost container, or the root).
    base::Status settle_string() {
        PyObject* s = decode(text_);
        if (s == nullptr) return failed();
        if (frames_.empty()) {
            Py_XDECREF(root_);
            root_ = s;
            return base::Status::ok();
        }
        Frame& f = frames_.back();
        int rc = 0;
        if (f.dict) {
            rc = PyDict_SetItem(f.container, f.key, s);
        } else {
            rc = PyList_SetItem(f.container, PyList_GET_SIZE(f.container) - 1, s);  // steals s
            return rc == 0 ? base::Status::ok() : failed();
        }
        Py_DECREF(s);
        return rc == 0 ? base::Status::ok() : failed();
    }

    base::Status open(PyObject* container, bool dict) {
        if (container == nullptr) return failed();
        Py_INCREF(container);  // place() steals one reference; the frame borrows the other's lifetime
        SLIPSTREAM_RETURN_IF_ERROR(place(container));
        Py_DECREF(container);
        frames_.push_back(Frame{container, dict, nullptr, {}, {}});
        return base::Status::ok();
    }

    base::Status close() {
        Py_XDECREF(frames_.back().key);
        frames_.pop_back();
        return base::Status::ok();
    }

    PyObject* root_ = nullptr;
    std::vector<Frame> frames_;
    bool in_string_ = false;
    std::string text_;
};

class NativeStreamValidator {
  public:
    NativeStreamValidator(const std::string& schema_json, std::size_t max_depth, std::size_t max_string_bytes) {
        json::ParseOptions options;
        options.max_depth = max_depth;
        options.max_string_bytes = max_string_bytes;
        base::Result<std::unique_ptr<StreamValidator>> v = StreamValidator::create(schema_json, options);
        if (!v.is_ok()) throw std::invalid_argument(v.status().message());
        validator_ = std::move(v).value();
        validator_->set_observer(&partial_);
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
        const StreamState s = validator_->feed(data);
        if (PyErr_Occurred() != nullptr) throw nb::python_error();  // building the partial value failed
        return static_cast<int>(s);
    }

    int finish() {
        const StreamState s = validator_->finish();
        if (PyErr_Occurred() != nullptr) throw nb::python_error();
        return static_cast<int>(s);
    }

    nb::object failure() const {
        if (validator_->state() != StreamState::kInvalid) return nb::none();
        const auto& f = validator_->failure();
        return nb::make_tuple(f.offset, f.pointer, f.keyword, f.message);
    }

    // The live value: complete or not, the accepted events built it (the same value the validator checked).
    nb::tuple snapshot_value() { return partial_.snapshot(); }

    nb::tuple snapshot() {
        std::string text;
        std::vector<std::string> partial;
        const bool any = validator_->snapshot_json(text, &partial);
        return nb::make_tuple(any ? nb::cast(text) : nb::none(), nb::cast(partial));
    }

  private:
    PartialValue partial_;  // declared first: the validator holds a pointer to it
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
