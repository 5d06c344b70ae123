// ValueBuilder: container frames on a stack, copied into the arena when they close.
#include "agent/structured/value_builder.h"

#include <charconv>
#include <cstdint>

#include "json/member_dedupe.h"
#include "json/pointer.h"

namespace slipstream::agent::structured {

base::Status ValueBuilder::begin_object() {
    Frame f;
    f.object = true;
    stack_.push_back(std::move(f));
    return base::Status::ok();
}

base::Status ValueBuilder::begin_array() {
    stack_.emplace_back();
    return base::Status::ok();
}

json::Value ValueBuilder::close_frame(Frame& f) {
    if (!f.object) {
        auto* items = arena_.make_array<json::Value>(f.items.size());
        std::copy(f.items.begin(), f.items.end(), items);
        return json::Value::array(items, static_cast<std::uint32_t>(f.items.size()));
    }
    auto* members = arena_.make_array<json::Member>(f.members.size());
    std::copy(f.members.begin(), f.members.end(), members);
    return json::Value::object(members, static_cast<std::uint32_t>(f.members.size()));
}

base::Status ValueBuilder::end_object() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    json::detail::DedupeResult d =
        json::detail::dedupe_members(f.members.data(), static_cast<std::uint32_t>(f.members.size()), duplicates_);
    if (d.duplicate != json::detail::DedupeResult::kNone) {
        return base::Status::invalid_argument("Duplicate key " + std::string(f.members[d.duplicate].key));
    }
    f.members.resize(d.size);
    return add(close_frame(f));
}

base::Status ValueBuilder::end_array() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    return add(close_frame(f));
}

base::Status ValueBuilder::key(std::string_view piece, bool last) {
    Frame& f = stack_.back();
    f.key.append(piece);
    if (last) f.has_key = true;
    return base::Status::ok();
}

base::Status ValueBuilder::string(std::string_view piece, bool last) {
    in_string_ = true;
    text_.append(piece);
    if (!last) return base::Status::ok();
    in_string_ = false;
    std::string_view copy = arena_.copy(text_);
    text_.clear();
    return add(json::Value::string(copy));
}

base::Status ValueBuilder::number(std::string_view text) {
    const char* first = text.data();
    const char* last = first + text.size();
    if (text.find_first_of(".eE") == std::string_view::npos) {
        std::int64_t s = 0;
        if (std::from_chars(first, last, s).ec == std::errc()) return add(json::Value::integer(s));
        std::uint64_t u = 0;
        if (text[0] != '-' && std::from_chars(first, last, u).ec == std::errc())
            return add(json::Value::unsigned_integer(u));
        return add(json::Value::big_integer(arena_.copy(text)));
    }
    double d = 0;
    if (std::from_chars(first, last, d).ec == std::errc::result_out_of_range) d = text[0] == '-' ? -0.0 : 0.0;
    return add(json::Value::number(d));  // JsonStream refused the doubles that overflow
}

base::Status ValueBuilder::boolean(bool value) {
    return add(json::Value::boolean(value));
}

base::Status ValueBuilder::null() {
    return add(json::Value::null());
}

base::Status ValueBuilder::add(json::Value v) {
    if (stack_.empty()) {
        root_ = v;
        done_ = true;
        return base::Status::ok();
    }
    Frame& f = stack_.back();
    if (!f.object) {
        f.items.push_back(v);
        return base::Status::ok();
    }
    f.members.push_back(json::Member{arena_.copy(f.key), v});
    f.key.clear();
    f.has_key = false;
    return base::Status::ok();
}

const json::Value* ValueBuilder::snapshot(std::vector<std::string>* partial) {
    if (done_) return &root_;
    if (stack_.empty() && !in_string_) return nullptr;
    json::Pointer at;
    // Innermost first: the open string, then each open container with what is below it as its last entry.
    bool have_inner = in_string_;
    json::Value inner = in_string_ ? json::Value::string(arena_.copy(text_)) : json::Value();
    std::vector<std::string> pointers;
    for (std::size_t i = stack_.size(); i-- > 0;) {
        Frame f = stack_[i];  // a copy: the live frame keeps building
        if (have_inner) {
            if (f.object) {
                f.members.push_back(json::Member{arena_.copy(f.key), inner});
            } else {
                f.items.push_back(inner);
            }
        }
        inner = close_frame(f);
        have_inner = true;
    }
    snapshot_root_ = inner;
    if (partial != nullptr) {
        partial->clear();
        json::Pointer p;
        for (std::size_t i = 0; i < stack_.size(); ++i) {
            partial->push_back(p.to_string());
            const Frame& f = stack_[i];
            if (i + 1 < stack_.size() || in_string_) {
                if (f.object) {
                    p.push_key(f.key);
                } else {
                    p.push_index(f.items.size());
                }
            }
        }
        if (in_string_) partial->push_back(p.to_string());
    }
    return &snapshot_root_;
}

}  // namespace slipstream::agent::structured
