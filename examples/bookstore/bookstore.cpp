// Bookstore, C++ handlers: PostgreSQL rows become the JSON body in the driver (fetch_json), no objects between.
// Run: bookstore --database-url postgresql://... (schema and seed: examples/bookstore/schema.sql).
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/database.h"
#include "app/serve_main.h"
#include "slipstream/json.h"
#include "slipstream/slipstream.h"

namespace {

using slipstream::Request;
using slipstream::Responder;
using slipstream::Response;
using slipstream::store::Database;
using slipstream::store::JsonResult;
using slipstream::store::QueryCancel;
using slipstream::store::QueryResult;
using DbPtr = std::shared_ptr<Database>;
// The database answers through std::function callbacks, which must be copyable: the Responder is shared.
using Reply = std::shared_ptr<Responder>;

constexpr std::int64_t kPageSize = 10;

constexpr const char* kStatsSql =
    "SELECT count(*) AS total_books, count(*) FILTER (WHERE published) AS published_books, "
    "count(*) FILTER (WHERE featured) AS featured_books, round(avg(price), 2) AS average_price, "
    "(SELECT count(*) FROM reviews) AS total_reviews, (SELECT round(avg(rating), 2) FROM reviews) AS average_rating "
    "FROM books";
constexpr const char* kCountSql = "SELECT count(*) FROM books WHERE published";
constexpr const char* kPageSql =
    "SELECT b.id, b.title, b.price, a.name AS author, c.name AS category FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "WHERE b.published ORDER BY b.id LIMIT 10 OFFSET $1";
constexpr const char* kSearchCountSql =
    "SELECT count(*) FROM books WHERE published AND search @@ websearch_to_tsquery('english', $1)";
constexpr const char* kSearchPageSql =
    "SELECT b.id, b.title, b.price, a.name AS author, c.name AS category FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "WHERE b.published AND b.search @@ websearch_to_tsquery('english', $1) ORDER BY b.id LIMIT 10 OFFSET $2";
constexpr const char* kBookSql =
    "SELECT b.id, b.title, b.isbn, b.price, b.published_on, b.summary, "
    "json_build_object('id', a.id, 'name', a.name) AS author, "
    "json_build_object('id', c.id, 'name', c.name, 'slug', c.slug) AS category, "
    "count(r.id) AS review_count, round(avg(r.rating), 2) AS average_rating FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "LEFT JOIN reviews r ON r.book_id = b.id WHERE b.id = $1 AND b.published GROUP BY b.id, a.id, c.id";
constexpr const char* kReviewsSql =
    "SELECT id, book_id, rating, reviewer, created_on FROM reviews WHERE id > $1 ORDER BY id LIMIT 11";

std::string hex(const unsigned char* bytes, std::size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += kDigits[bytes[i] >> 4];
        out += kDigits[bytes[i] & 15];
    }
    return out;
}

// A strong validator of the body: the first 20 hex digits of its SHA-256, quoted.
std::string etag_of(std::string_view body) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(body.data(), body.size(), digest, &n, EVP_sha256(), nullptr);
    return "\"" + hex(digest, n).substr(0, 20) + "\"";
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
    while (!if_none_match.empty()) {
        std::size_t comma = if_none_match.find(',');
        std::string_view item = if_none_match.substr(0, comma);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        if (item.substr(0, 2) == "W/") item.remove_prefix(2);
        if (item == "*" || item == etag) return true;
        if (comma == std::string_view::npos) break;
        if_none_match.remove_prefix(comma + 1);
    }
    return false;
}

// Review cursors: "<last id>.<16 hex digits of HMAC-SHA256(secret, last id)>", so a client cannot forge one.
class CursorSigner {
  public:
    explicit CursorSigner(std::string secret) : secret_(std::move(secret)) {}

    std::string sign(std::int64_t id) const { return std::to_string(id) + "." + mac(std::to_string(id)); }

    /// The id a cursor carries, or -1 when it is malformed or its signature is wrong.
    std::int64_t open(std::string_view cursor) const {
        std::size_t dot = cursor.find('.');
        if (dot == std::string_view::npos || dot == 0 || dot > 18) return -1;
        std::int64_t id = 0;
        auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + dot, id);
        if (ec != std::errc() || end != cursor.data() + dot || id < 0) return -1;
        return cursor.substr(dot + 1) == mac(cursor.substr(0, dot)) ? id : -1;
    }

  private:
    std::string mac(std::string_view text) const {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
             reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest, &n);
        return hex(digest, n).substr(0, 16);
    }
    std::string secret_;
};

// A failed statement: the client hears why in general terms, never the SQL or the server's message.
Response database_error(const slipstream::base::Status& status) {
    std::fprintf(stderr, "bookstore: %s\n", status.to_string().c_str());
    using Code = slipstream::base::StatusCode;
    if (status.code() == Code::kUnavailable || status.code() == Code::kTimeout)
        return Response::static_json(R"({"detail":"database unavailable"})", 503).with_header("Retry-After", "1");
    return Response::static_json(R"({"detail":"Internal Server Error"})", 500);
}

// The statements one request started. A client that goes away (or a handler timeout's 504) cancels them: the
// server stops the one still running and its connection serves other requests at once.
class Statements {
  public:
    static std::shared_ptr<Statements> of(Responder& responder) {
        auto s = std::make_shared<Statements>();
        responder.on_cancel([s] { s->cancel(); });
        return s;
    }
    void add(std::shared_ptr<QueryCancel> statement) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (cancelled_) statement->cancel();
        started_.push_back(std::move(statement));
    }
    void cancel() {
        std::lock_guard<std::mutex> lock(mutex_);
        cancelled_ = true;
        for (auto& s : started_)
            s->cancel();  // one already answered: nothing happens
    }

  private:
    std::mutex mutex_;
    std::vector<std::shared_ptr<QueryCancel>> started_;
    bool cancelled_ = false;
};

// "[{...}]" -> "{...}"; empty when no row.
std::string only_row(std::string rows) {
    if (rows.size() < 4) return {};
    return rows.substr(1, rows.size() - 2);
}

void stats(const DbPtr& db, Responder responder) {
    Reply reply = std::make_shared<Responder>(std::move(responder));
    auto statements = Statements::of(*reply);
    statements->add(db->fetch_json(kStatsSql, {}, [reply](JsonResult r) mutable {
        if (!r.is_ok()) return void(reply->send(database_error(r.status())));
        reply->send(Response::json(only_row(std::move(r).value())));
    }));
}

void list_books(const DbPtr& db, std::int64_t page, std::string search, Responder responder) {
    Reply reply = std::make_shared<Responder>(std::move(responder));
    auto statements = Statements::of(*reply);
    const bool searching = !search.empty();
    slipstream::store::Params count_params;
    if (searching) count_params.push_back(search);
    statements->add(
        db->query(searching ? kSearchCountSql : kCountSql, std::move(count_params),
                  [db, page, search = std::move(search), searching, reply, statements](QueryResult count) mutable {
                      if (!count.is_ok()) return void(reply->send(database_error(count.status())));
                      std::string head = R"({"total":)" + std::string(count->text(0, 0)) + R"(,"page":)" +
                                         std::to_string(page) + R"(,"page_size":10,"items":)";
                      slipstream::store::Params params;
                      if (searching) params.push_back(std::move(search));
                      params.push_back((page - 1) * kPageSize);
                      statements->add(db->fetch_json(searching ? kSearchPageSql : kPageSql, std::move(params),
                                                     [head = std::move(head), reply](JsonResult items) mutable {
                                                         if (!items.is_ok())
                                                             return void(reply->send(database_error(items.status())));
                                                         reply->send(Response::json(head + items.value() + "}"));
                                                     }));
                  }));
}

void book(const DbPtr& db, std::int64_t id, std::string if_none_match, Responder responder) {
    Reply reply = std::make_shared<Responder>(std::move(responder));
    auto statements = Statements::of(*reply);
    statements->add(
        db->fetch_json(kBookSql, {id}, [if_none_match = std::move(if_none_match), reply](JsonResult r) mutable {
            if (!r.is_ok()) return void(reply->send(database_error(r.status())));
            std::string body = only_row(std::move(r).value());
            if (body.empty()) return void(reply->send(Response::static_json(R"({"detail":"Book not found"})", 404)));
            std::string etag = etag_of(body);
            Response out = etag_matches(if_none_match, etag) ? Response(304) : Response::json(std::move(body));
            reply->send(std::move(out.with_header("ETag", etag).with_header("Cache-Control", "public, max-age=60")));
        }));
}

void reviews(const DbPtr& db, const std::shared_ptr<const CursorSigner>& signer, std::string_view cursor,
             Responder responder) {
    Reply reply = std::make_shared<Responder>(std::move(responder));
    std::int64_t after = cursor.empty() ? 0 : signer->open(cursor);
    if (after < 0) return void(reply->send(Response::static_json(R"({"detail":"invalid cursor"})", 400)));
    auto statements = Statements::of(*reply);
    statements->add(db->query(kReviewsSql, {after}, [signer, reply](QueryResult r) mutable {
        if (!r.is_ok()) return void(reply->send(database_error(r.status())));
        const std::size_t n = std::min<std::size_t>(r->row_count(), kPageSize);
        std::string out = R"({"items":[)";
        for (std::size_t i = 0; i < n; ++i) {
            out += (i == 0 ? R"({"id":)" : R"(,{"id":)");
            out += r->text(i, 0);
            out += R"(,"book_id":)";
            out += r->text(i, 1);
            out += R"(,"rating":)";
            out += r->text(i, 2);
            out += R"(,"reviewer":)" + slipstream::json_quote(r->text(i, 3));
            out += R"(,"created_on":")";
            out += r->text(i, 4);
            out += "\"}";
        }
        out += R"(],"next_cursor":)";
        if (r->row_count() > kPageSize) {
            std::int64_t last = 0;
            std::string_view text = r->text(n - 1, 0);
            std::from_chars(text.data(), text.data() + text.size(), last);
            out += "\"" + signer->sign(last) + "\"";
        } else {
            out += "null";
        }
        reply->send(Response::json(out + "}"));
    }));
}

slipstream::ParamSpec param(const char* name, slipstream::ParamSource source, const char* schema,
                            const char* default_json) {
    slipstream::ParamSpec p;
    p.name = name;
    p.source = source;
    p.schema_json = schema;
    p.required = default_json == nullptr;
    if (default_json != nullptr) p.default_json = default_json;
    return p;
}

void add_routes(slipstream::App& app, const DbPtr& db) {
    using slipstream::ParamSource;
    const char* secret = std::getenv("BOOKSTORE_CURSOR_SECRET");
    auto signer =
        std::make_shared<const CursorSigner>(secret != nullptr && *secret != '\0' ? secret : "bookstore-demo");

    app.route_async("GET", "/api/v1/books/stats", [db](Request&, Responder r) { stats(db, std::move(r)); });

    slipstream::RouteSpec list_spec;
    list_spec.params.push_back(
        param("page", ParamSource::kQuery, R"({"type":"integer","minimum":1,"maximum":1000})", "1"));
    list_spec.params.push_back(param("search", ParamSource::kQuery,
                                     R"({"anyOf":[{"type":"string","maxLength":100},{"type":"null"}]})", "null"));
    app.route_async(
        "GET", "/api/v1/books/",
        [db](Request& req, Responder r) {
            auto args = req.arguments();
            auto search = args.get("search");
            list_books(db, args.get("page").as_int(), search.is_null() ? "" : std::string(search.as_string()),
                       std::move(r));
        },
        list_spec);

    slipstream::RouteSpec book_spec;
    book_spec.params.push_back(param("book_id", ParamSource::kPath, R"({"type":"integer"})", nullptr));
    app.route_async(
        "GET", "/api/v1/books/{book_id}",
        [db](Request& req, Responder r) {
            book(db, req.arguments().get("book_id").as_int(), std::string(req.header("if-none-match").value_or("")),
                 std::move(r));
        },
        book_spec);

    slipstream::RouteSpec reviews_spec;
    reviews_spec.params.push_back(param("cursor", ParamSource::kQuery,
                                        R"({"anyOf":[{"type":"string","maxLength":64},{"type":"null"}]})", "null"));
    app.route_async(
        "GET", "/api/v1/reviews/",
        [db, signer](Request& req, Responder r) {
            auto cursor = req.arguments().get("cursor");
            reviews(db, signer, cursor.is_null() ? std::string_view() : cursor.as_string(), std::move(r));
        },
        reviews_spec);
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    return slipstream::app::serve_main(
        argc, argv, envp, "bookstore", [](slipstream::App& app, const slipstream::app::Config& config) {
            auto db = slipstream::app::open_database(config, app);
            if (!db.is_ok()) throw std::invalid_argument(db.status().message());
            if (!db.value()) throw std::invalid_argument("bookstore needs a database: --database-url postgresql://...");
            add_routes(app, db.value());
        });
}
