// PrefixChecker: a JsonStream into a SchemaChecker into nothing; copies rewire the chain to their own members.
#include "agent/structured/prefix_checker.h"

namespace slipstream::agent::structured {

PrefixChecker::PrefixChecker(std::shared_ptr<const CompiledSchema> schema, json::ParseOptions options)
    : schema_(std::move(schema)),
      checker_(schema_->document(), schema_->siblings_of_ref(), sink_, schema_->patterns()),
      stream_(&checker_, options) {
    checker_.set_reject_repeated_keys(options.duplicate_keys == json::DuplicateKeys::kReject);
}

PrefixChecker::PrefixChecker(const PrefixChecker& other)
    : schema_(other.schema_), checker_(other.checker_), stream_(other.stream_) {
    checker_.set_next(sink_);
    stream_.set_events(&checker_);
}

PrefixChecker& PrefixChecker::operator=(const PrefixChecker& other) {
    if (this == &other) return *this;
    if (schema_ != other.schema_) schema_ = other.schema_;
    checker_ = other.checker_;
    stream_ = other.stream_;
    checker_.set_next(sink_);
    stream_.set_events(&checker_);
    return *this;
}

}  // namespace slipstream::agent::structured
