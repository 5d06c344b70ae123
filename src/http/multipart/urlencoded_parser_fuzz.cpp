// libFuzzer target: UrlencodedParser, whole vs split feeding (default and tight limits) must agree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/multipart/urlencoded_parser.h"

namespace {

using namespace slipstream;
using namespace slipstream::http::multipart;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

class Collector : public FieldSink {
  public:
    explicit Collector(const FormLimits& limits) : limits_(limits) {}
    base::Status on_field(std::string_view name, std::string_view value) override {
        require(name.size() + value.size() <= limits_.max_field_size);
        log_.append(name).append("=").append(value).append("\n");
        return base::Status::ok();
    }
    std::string log_;

  private:
    const FormLimits& limits_;
};

std::string run(std::string_view in, std::size_t split, const FormLimits& limits, FormErrorKind* kind) {
    Collector sink(limits);
    UrlencodedParser parser(limits, sink);
    bool ok =
        parser.feed(in.substr(0, split)).is_ok() && parser.feed(in.substr(split)).is_ok() && parser.finish().is_ok();
    require(ok == parser.error().ok());
    require(parser.fields() <= limits.max_fields + 1);
    *kind = parser.error().kind;
    return sink.log_;
}

void check(std::string_view in, const FormLimits& limits) {
    FormErrorKind a, b;
    std::string whole = run(in, in.size(), limits, &a);
    std::string split = run(in, in.size() / 3, limits, &b);
    require(whole == split && a == b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    check(in, FormLimits{});
    FormLimits tight;
    tight.max_fields = 3;
    tight.max_field_size = 6;
    check(in, tight);
    return 0;
}
