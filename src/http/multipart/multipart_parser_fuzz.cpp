// libFuzzer target: MultipartParser. The first input line is the boundary, the rest the body; the body is parsed
// whole and split in two (default and tight limits) and both runs must agree (up to how many bytes of a failing
// part were delivered before the error). Any broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/multipart/multipart_parser.h"

namespace {

using namespace slipstream;
using namespace slipstream::http::multipart;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

class Recorder : public PartSink {
  public:
    explicit Recorder(const FormLimits& limits) : limits_(limits) {}
    base::Status on_part_begin(const PartHead& head) override {
        require(!open_);
        open_ = true;
        file_ = head.is_file();
        size_ = 0;
        log_ += "B" + head.name + "|" + head.filename.value_or("-") + "|" + head.content_type + "\n";
        require(head.headers.size() <= limits_.max_part_headers);
        return base::Status::ok();
    }
    base::Status on_part_data(std::string_view data) override {
        require(open_ && !data.empty());
        size_ += data.size();
        require(size_ <= (file_ ? limits_.max_file_size : limits_.max_field_size));
        log_.append(data);
        return base::Status::ok();
    }
    base::Status on_part_end() override {
        require(open_);
        open_ = false;
        log_ += "\nE\n";
        return base::Status::ok();
    }
    std::string log_;

  private:
    const FormLimits& limits_;
    bool open_ = false;
    bool file_ = false;
    std::size_t size_ = 0;
};

struct Outcome {
    std::string log;
    FormErrorKind kind;
    std::size_t fields, files;
};

Outcome run(std::string_view boundary, std::string_view body, std::size_t split, const FormLimits& limits) {
    Recorder rec(limits);
    MultipartParser parser(boundary, limits, rec);
    bool ok = parser.feed(body.substr(0, split)).is_ok() && parser.feed(body.substr(split)).is_ok() &&
              parser.finish().is_ok();
    require(ok == parser.error().ok());
    require(parser.fields() <= limits.max_fields + 1 && parser.files() <= limits.max_files + 1);
    return {rec.log_, parser.error().kind, parser.fields(), parser.files()};
}

void check(std::string_view boundary, std::string_view body, const FormLimits& limits) {
    const Outcome whole = run(boundary, body, body.size(), limits);
    const Outcome split =
        run(boundary, body, body.empty() ? 0 : static_cast<unsigned char>(body[0]) % body.size(), limits);
    require(whole.kind == split.kind && whole.fields == split.fields && whole.files == split.files);
    if (whole.kind == FormErrorKind::kNone) {
        require(whole.log == split.log);
    } else {
        // Before an error the sink may have seen part of the failing part's bytes, more or fewer by the split.
        const std::string& shorter = whole.log.size() < split.log.size() ? whole.log : split.log;
        const std::string& longer = whole.log.size() < split.log.size() ? split.log : whole.log;
        require(longer.compare(0, shorter.size(), shorter) == 0);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    std::size_t nl = in.find('\n');
    std::string_view boundary = nl == std::string_view::npos ? std::string_view("b") : in.substr(0, nl);
    std::string_view body = nl == std::string_view::npos ? in : in.substr(nl + 1);
    check(boundary, body, FormLimits{});
    FormLimits tight;
    tight.max_fields = 2;
    tight.max_files = 1;
    tight.max_field_size = 8;
    tight.max_file_size = 16;
    tight.max_part_header_bytes = 48;
    tight.max_part_headers = 2;
    check(boundary, body, tight);
    return 0;
}
