// NativeTokens (TokenService) and open_rate_limit_store for Python apps; the engine objects go to the app's options
// as capsules.
#include "py_shared_state.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "native_app.h"
#include "option_values.h"
#include "server_options_from_dict.h"
#include "slipstream/shared_state.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

using Setter = std::function<void(TokensOptions&, const nb::handle&, const std::string&)>;

const std::map<std::string, Setter>& setters() {
    using O = TokensOptions;
    static const std::map<std::string, Setter> table = {
        {"store_url", [](O& o, const nb::handle& v, const std::string& k) { o.store_url = option_values::text(v, k); }},
        {"admin_token",
         [](O& o, const nb::handle& v, const std::string& k) { o.admin_token = option_values::text(v, k); }},
        {"refresh_ms",
         [](O& o, const nb::handle& v, const std::string& k) {
             o.refresh_ms = static_cast<std::uint32_t>(option_values::count(v, k, 10, 3'600'000));
         }},
        {"max_tokens", [](O& o, const nb::handle& v,
                          const std::string& k) { o.max_tokens = option_values::count(v, k, 1, 10'000'000); }},
        {"max_ttl_s",
         [](O& o, const nb::handle& v, const std::string& k) {
             o.max_ttl_s = option_values::integer(v, k, 1, 100LL * 366 * 86'400);
         }},
        {"keep_revoked_s",
         [](O& o, const nb::handle& v, const std::string& k) {
             o.keep_revoked_s = option_values::integer(v, k, 0, 100LL * 366 * 86'400);
         }},
    };
    return table;
}

template <typename T>
nb::object capsule(std::shared_ptr<T> value, const char* name) {
    auto* held = new std::shared_ptr<T>(std::move(value));
    PyObject* c = PyCapsule_New(held, name, [](PyObject* self) {
        delete static_cast<std::shared_ptr<T>*>(PyCapsule_GetPointer(self, PyCapsule_GetName(self)));
    });
    if (c == nullptr) {
        delete held;
        throw nb::python_error();
    }
    return nb::steal(c);
}

class NativeTokens {
  public:
    explicit NativeTokens(const nb::dict& options) {
        TokensOptions o;
        for (auto [k, v] : options) {
            const std::string key = nb::cast<std::string>(k);
            auto it = setters().find(key);
            if (it == setters().end()) throw std::invalid_argument("unknown tokens option: " + key);
            it->second(o, v, key);
        }
        nb::gil_scoped_release release;
        service_ = std::make_unique<TokenService>(std::move(o));
    }

    nb::object credentials() const { return capsule(service_->credentials(), kIssuedCredentialsCapsule); }

    std::string mount(NativeApp& app, const std::string& prefix, const std::string& openapi_path) {
        if (app.started()) throw std::invalid_argument("mount the token routes before the app starts");
        return service_->mount(app.app(), prefix, openapi_path);
    }

    void close() {
        nb::gil_scoped_release release;
        service_->close();
    }

  private:
    std::unique_ptr<TokenService> service_;
};

nb::object rate_limit_store(const std::string& url, std::uint32_t timeout_ms) {
    std::shared_ptr<RateLimitStore> store;
    {
        nb::gil_scoped_release release;
        store = open_rate_limit_store(url, timeout_ms);
    }
    return capsule(std::move(store), kRateLimitStoreCapsule);
}

}  // namespace

void register_shared_state(nb::module_& m) {
    nb::class_<NativeTokens>(m, "NativeTokens")
        .def(nb::init<const nb::dict&>(), nb::arg("options"))
        .def("credentials", &NativeTokens::credentials)
        .def("mount", &NativeTokens::mount, nb::arg("app"), nb::arg("prefix"), nb::arg("openapi_path"))
        .def("close", &NativeTokens::close);
    m.def("open_rate_limit_store", &rate_limit_store, nb::arg("url"), nb::arg("timeout_ms"));
}

}  // namespace slipstream::python
