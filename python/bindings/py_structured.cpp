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
        .def("snapshot", &NativeStreamValidator::snapshot);
}

}  // namespace slipstream::python
