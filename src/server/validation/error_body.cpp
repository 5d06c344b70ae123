// FastAPI's 422 body, written with the JSON writer in the key order FastAPI uses.
#include "server/validation/error_body.h"

namespace slipstream::server::detail {

ErrorBody::ErrorBody(std::string& out) : writer_(out) {
    writer_.begin_object();
    writer_.key("detail");
    writer_.begin_array();
}

void ErrorBody::begin_error(std::string_view type, std::initializer_list<LocPart> prefix) {
    ++count_;
    writer_.begin_object();
    writer_.key("type");
    writer_.string(type);
    writer_.key("loc");
    writer_.begin_array();
    for (const LocPart& p : prefix) {
        if (p.index >= 0)
            writer_.int64(p.index);
        else
            writer_.string(p.key);
    }
}

void ErrorBody::add_all(const json::schema::ErrorSink& sink, std::initializer_list<LocPart> prefix,
                        std::span<const std::string_view> raw, bool raw_is_list) {
    for (const json::schema::ValidationError& e : sink.errors()) {
        begin_error(e.type, prefix);
        for (const json::schema::PathSegment& seg : e.loc) {
            if (seg.is_index())
                writer_.int64(seg.index);
            else
                writer_.string(seg.key);
        }
        writer_.end_array();
        writer_.key("msg");
        writer_.string(e.msg);
        writer_.key("input");
        write_input(e, raw, raw_is_list);
        if (!e.ctx.is_null()) {
            writer_.key("ctx");
            if (!writer_.write_value(e.ctx).is_ok()) writer_.null();
        }
        writer_.end_object();
    }
}

void ErrorBody::write_input(const json::schema::ValidationError& e, std::span<const std::string_view> raw,
                            bool raw_is_list) {
    if (!raw.empty() && e.loc.empty()) {
        if (!raw_is_list) return writer_.string(raw.back());
        writer_.begin_array();
        for (std::string_view r : raw)
            writer_.string(r);
        return writer_.end_array();
    }
    if (!raw.empty() && raw_is_list && e.loc.size() == 1 && e.loc[0].is_index() &&
        static_cast<std::size_t>(e.loc[0].index) < raw.size())
        return writer_.string(raw[static_cast<std::size_t>(e.loc[0].index)]);
    // Inputs from JSON are finite; a coerced "inf" is only reached above, so a failure here leaves null.
    if (!writer_.write_value(e.input).is_ok()) writer_.null();
}

void ErrorBody::add_missing(std::initializer_list<LocPart> prefix) {
    begin_error("missing", prefix);
    writer_.end_array();
    writer_.key("msg");
    writer_.string("Field required");
    writer_.key("input");
    writer_.null();
    writer_.end_object();
}

void ErrorBody::add_json_invalid(std::size_t position, std::string_view reason) {
    begin_error("json_invalid", {{"body"}, {{}, static_cast<long long>(position)}});
    writer_.end_array();
    writer_.key("msg");
    writer_.string("JSON decode error");
    writer_.key("input");
    writer_.begin_object();
    writer_.end_object();
    writer_.key("ctx");
    writer_.begin_object();
    writer_.key("error");
    writer_.string(reason);
    writer_.end_object();
    writer_.end_object();
}

void ErrorBody::finish() {
    writer_.end_array();
    writer_.end_object();
}

}  // namespace slipstream::server::detail
