// Resource discovery ($id, $anchor, $dynamicAnchor, $schema) and $ref resolution across documents.
#include "json/schema/registry.h"

#include "json/parse.h"
#include "json/schema/metaschemas.h"
#include "json/schema/schema_error.h"
#include "json/schema/str_cat.h"
#include "json/schema/subschema_kind.h"
#include "json/schema/uri.h"

namespace slipstream::json::schema::detail {
namespace {

constexpr int kMaxNesting = 512;
constexpr std::string_view kVocabPrefix = "https://json-schema.org/draft/2020-12/vocab/";

std::string strip_hash(std::string_view uri) {
    if (!uri.empty() && uri.back() == '#') uri.remove_suffix(1);
    return std::string(uri);
}

std::string unescape_token(std::string_view token) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
            out.push_back(token[i + 1] == '0' ? '~' : '/');
            ++i;
        } else {
            out.push_back(token[i]);
        }
    }
    return out;
}

const json::Value* child(const json::Value& v, const std::string& token) {
    if (v.is_object()) return v.find(token);
    if (!v.is_array() || token.empty() || token.size() > 9) return nullptr;
    if (token.size() > 1 && token[0] == '0') return nullptr;
    std::uint32_t index = 0;
    for (char c : token) {
        if (c < '0' || c > '9') return nullptr;
        index = index * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return index < v.size() ? &v.items()[index] : nullptr;
}

}  // namespace

std::string escape_pointer_token(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out.push_back(c);
    }
    return out;
}

const SchemaInfo& Registry::add_document(const json::Value& root, const std::string& uri) {
    SchemaInfo parent;
    parent.base = uri;
    parent.draft = options_.default_draft;
    parent.format_assert = options_.format_assertion;
    discover(root, parent, "", true, 0);
    resources_.emplace(uri, &root);
    return info_.at(&root);
}

const SchemaInfo* Registry::find(const json::Value* v) const {
    auto it = info_.find(v);
    return it == info_.end() ? nullptr : &it->second;
}

Resource* Registry::new_resource(const std::string& uri) {
    data_.resources.push_back(std::make_unique<Resource>());
    data_.resources.back()->uri = uri;
    return data_.resources.back().get();
}

void Registry::discover(const json::Value& v, const SchemaInfo& parent, std::string pointer, bool doc_root, int depth) {
    if (depth > kMaxNesting) throw SchemaError(parent.location(), "schema nested deeper than 512 levels");
    if (info_.count(&v) != 0) return;
    SchemaInfo me = parent;
    me.pointer = std::move(pointer);
    if (!v.is_object()) {
        if (doc_root) me.resource = new_resource(me.base);
        info_.emplace(&v, std::move(me));
        return;
    }
    // $id: a new base URI (draft-07: ignored beside $ref; a bare "#name" is an anchor there).
    bool resource_root = doc_root;
    std::string_view anchor7;
    const json::Value* id = v.find("$id");
    if (id != nullptr && id->is_string() && !(me.draft == Draft::kDraft7 && v.find("$ref") != nullptr)) {
        auto [uri, fragment] = split_fragment(id->as_string());
        if (!uri.empty()) {
            me.base = resolve_uri(parent.base, uri);
            resource_root = true;
        }
        if (me.draft == Draft::kDraft7) anchor7 = fragment;
    }
    if (resource_root) {
        me.pointer.clear();
        if (const json::Value* s = v.find("$schema"); s != nullptr && s->is_string())
            apply_schema_keyword(me, s->as_string(), me.location() + "/$schema");
        me.format_assert = options_.format_assertion || me.format_assert;
        me.resource = new_resource(me.base);
        resources_[me.base] = &v;
    }
    if (!anchor7.empty()) anchors_[me.base + "#" + std::string(anchor7)] = Anchor{&v, false};
    if (me.draft == Draft::kDraft2020_12) {
        if (const json::Value* a = v.find("$anchor"); a != nullptr && a->is_string())
            anchors_[me.base + "#" + std::string(a->as_string())] = Anchor{&v, false};
        if (const json::Value* a = v.find("$dynamicAnchor"); a != nullptr && a->is_string()) {
            anchors_[me.base + "#" + std::string(a->as_string())] = Anchor{&v, true};
            dynamic_anchors_.push_back(DynamicAnchor{me.resource, std::string(a->as_string()), &v});
        }
    }
    const SchemaInfo& stored = info_.emplace(&v, std::move(me)).first->second;
    discover_children(v, stored, depth);
}

void Registry::discover_children(const json::Value& v, const SchemaInfo& me, int depth) {
    for (const json::Member& m : v.members()) {
        SubschemaKind kind = subschema_kind(m.key, me.draft);
        if (kind == SubschemaKind::kNone) continue;
        std::string base = me.pointer + "/" + escape_pointer_token(m.key);
        const json::Value& val = m.value;
        bool single = kind == SubschemaKind::kSchema || (kind == SubschemaKind::kItems7 && !val.is_array());
        if (single) {
            discover(val, me, base, false, depth + 1);
        } else if ((kind == SubschemaKind::kSchemaArray || kind == SubschemaKind::kItems7) && val.is_array()) {
            for (std::uint32_t i = 0; i < val.size(); ++i)
                discover(val.items()[i], me, base + "/" + std::to_string(i), false, depth + 1);
        } else if ((kind == SubschemaKind::kSchemaMap || kind == SubschemaKind::kDependencies7) && val.is_object()) {
            for (const json::Member& sub : val.members()) {
                if (kind == SubschemaKind::kDependencies7 && sub.value.is_array()) continue;
                discover(sub.value, me, base + "/" + escape_pointer_token(sub.key), false, depth + 1);
            }
        }
    }
}

void Registry::apply_schema_keyword(SchemaInfo& me, std::string_view uri, const std::string& location) {
    std::string u = strip_hash(uri);
    if (u == "https://json-schema.org/draft/2020-12/schema") {
        me.draft = Draft::kDraft2020_12;
        me.vocab = kVocabStandard;
        me.format_assert = false;
        return;
    }
    if (u == "http://json-schema.org/draft-07/schema" || u == "https://json-schema.org/draft-07/schema") {
        me.draft = Draft::kDraft7;
        me.vocab = kVocabStandard;
        me.format_assert = false;
        return;
    }
    if (u.rfind("http://json-schema.org/", 0) == 0 || u.rfind("https://json-schema.org/", 0) == 0)
        throw SchemaError(location, "unsupported $schema '" + u + "' (supported: 2020-12 and draft-07)");
    // A custom metaschema: its own $schema gives the dialect, its $vocabulary the keywords.
    RefTarget meta = resolve(u, location);
    const json::Value& doc = *meta.value;
    me.draft = meta.info->draft;
    me.vocab = kVocabStandard;
    me.format_assert = false;
    const json::Value* vocabulary = doc.is_object() ? doc.find("$vocabulary") : nullptr;
    if (vocabulary == nullptr || !vocabulary->is_object()) return;
    me.vocab = 0;
    for (const json::Member& m : vocabulary->members()) {
        std::string_view name = m.key;
        if (name.substr(0, kVocabPrefix.size()) != kVocabPrefix) {
            if (m.value.is_bool() && m.value.as_bool())
                throw SchemaError(location, cat("metaschema requires unknown vocabulary '", name, "'"));
            continue;
        }
        name.remove_prefix(kVocabPrefix.size());
        if (name == "applicator") me.vocab |= kVocabApplicator;
        if (name == "validation") me.vocab |= kVocabValidation;
        if (name == "unevaluated") me.vocab |= kVocabUnevaluated;
        if (name == "format-assertion") me.format_assert = true;
    }
}

const json::Value& Registry::load(const std::string& uri, const std::string& location) {
    std::optional<std::string> owned;
    std::string_view text;
    if (auto builtin = builtin_metaschema(uri)) {
        text = *builtin;
    } else {
        if (options_.resolver) owned = options_.resolver(uri);
        if (!owned) throw SchemaError(location, "cannot resolve '" + uri + "': the resolver has no such document");
        text = *owned;
    }
    json::ParseOptions parse_options;
    parse_options.max_depth = kMaxNesting;
    json::ParseError error;
    auto parsed = json::parse(text, data_.arena, parse_options, &error);
    if (!parsed.is_ok())
        throw SchemaError(location, "document '" + uri + "' is not valid JSON at offset " +
                                        std::to_string(error.offset) + ": " + error.message);
    const json::Value* root = parsed.value();
    if (!loading_.insert(uri).second) throw SchemaError(location, "'" + uri + "' refers to itself as its $schema");
    add_document(*root, uri);
    loading_.erase(uri);
    return *root;
}

RefTarget Registry::resolve(const std::string& uri, const std::string& location) {
    auto [doc_view, fragment_view] = split_fragment(uri);
    std::string doc(doc_view);
    auto it = resources_.find(doc);
    const json::Value* root = it != resources_.end() ? it->second : &load(doc, location);
    std::string fragment = percent_decode(fragment_view);
    if (fragment.empty()) return RefTarget{root, &info_.at(root), false};
    if (fragment[0] == '/') return navigate(*root, fragment, uri, location);
    auto anchor = anchors_.find(doc + "#" + fragment);
    if (anchor == anchors_.end()) anchor = anchors_.find(info_.at(root).base + "#" + fragment);
    if (anchor == anchors_.end()) throw SchemaError(location, "no anchor '" + fragment + "' in '" + doc + "'");
    return RefTarget{anchor->second.value, &info_.at(anchor->second.value), anchor->second.dynamic};
}

RefTarget Registry::navigate(const json::Value& root, std::string_view pointer, const std::string& uri,
                             const std::string& location) {
    const json::Value* cur = &root;
    const SchemaInfo* last = &info_.at(&root);
    std::string rel = last->pointer;
    while (!pointer.empty()) {
        pointer.remove_prefix(1);  // the '/'
        auto slash = pointer.find('/');
        std::string token = unescape_token(pointer.substr(0, slash));
        pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
        cur = child(*cur, token);
        if (cur == nullptr) throw SchemaError(location, "$ref target '" + uri + "' does not exist");
        rel.push_back('/');
        rel += escape_pointer_token(token);
        if (const SchemaInfo* i = find(cur)) {
            last = i;
            rel = i->pointer;
        }
    }
    if (const SchemaInfo* i = find(cur)) return RefTarget{cur, i, false};
    // A position discovery did not visit (inside an unknown keyword): adopt it under the
    // nearest enclosing schema's base.
    SchemaInfo context = *last;
    discover(*cur, context, rel, false, 0);
    return RefTarget{cur, &info_.at(cur), false};
}

}  // namespace slipstream::json::schema::detail
