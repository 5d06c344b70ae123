// StreamValidator: a JsonStream feeding a SchemaChecker (and through it a ValueBuilder), and the final verdict.
#include "agent/structured/stream_validator.h"

#include "json/pointer.h"
#include "json/schema/error_sink.h"
#include "json/writer.h"

namespace slipstream::agent::structured {

StreamValidator::StreamValidator(const json::Value& schema, json::schema::Schema compiled, json::ParseOptions options)
    : compiled_(std::move(compiled)),
      builder_(arena_, options.duplicate_keys),
      checker_(std::make_unique<SchemaChecker>(schema, compiled_.draft() != json::schema::Draft::kDraft7, tee_)),
      stream_(checker_.get(), options) {}

StreamValidator::~StreamValidator() = default;

base::Result<std::unique_ptr<StreamValidator>> StreamValidator::create(std::string_view schema_json,
                                                                       json::ParseOptions options) {
    base::Result<std::shared_ptr<const CompiledSchema>> compiled = CompiledSchema::create(schema_json);
    if (!compiled.is_ok()) return compiled.status();
    auto v = std::make_unique<StreamValidator>((*compiled)->document(), (*compiled)->schema(), options);
    v->owned_ = std::move(compiled).value();
    return v;
}

bool StreamValidator::snapshot_json(std::string& out, std::vector<std::string>* partial) {
    const json::Value* v = builder_.snapshot(partial);
    if (v == nullptr) return false;
    json::Writer w(out);
    return w.write_value(*v).is_ok();
}

StreamState StreamValidator::feed(std::string_view chunk) {
    return settle(stream_.feed(chunk));
}

StreamState StreamValidator::finish() {
    return settle(stream_.finish());
}

// An invalid stream gets its offset (and "json" for a syntax or limit error); a complete one its verdict.
StreamState StreamValidator::settle(StreamState s) {
    if (state_ == StreamState::kInvalid) return state_;
    if (s == StreamState::kInvalid) {  // also after a complete document: bytes other than whitespace followed it
        const CheckFailure& checked = checker_->failure();
        if (!checked.keyword.empty()) {
            failure_.keyword = checked.keyword;
            failure_.pointer = checked.pointer;
            failure_.message = checked.message;
        } else {
            failure_.keyword = "json";
            failure_.message = stream_.error().message;
        }
        failure_.offset = stream_.error().offset;
        return state_ = s;
    }
    if (s != StreamState::kComplete || state_ == StreamState::kComplete) return state_;
    json::schema::ErrorSink sink(1);
    if (compiled_.validate(*builder_.result(), &sink)) return state_ = StreamState::kComplete;
    const json::schema::ValidationError& e = sink.errors().front();
    failure_.offset = stream_.offset();
    failure_.pointer.clear();
    for (const json::schema::PathSegment& seg : e.loc) {
        failure_.pointer.push_back('/');
        if (seg.is_index()) {
            failure_.pointer += std::to_string(seg.index);
        } else {
            json::append_pointer_token(failure_.pointer, seg.key);
        }
    }
    const std::size_t slash = e.schema_path.rfind('/');
    failure_.keyword = slash == std::string::npos ? e.schema_path : e.schema_path.substr(slash + 1);
    failure_.message = e.msg;
    return state_ = StreamState::kInvalid;
}

}  // namespace slipstream::agent::structured
