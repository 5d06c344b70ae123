// Parser: statements ({% if/for/set/macro/... %}) and expressions, following Jinja's grammar and precedence.
#include "agent/infer/jinja/parser.h"

#include <algorithm>
#include <initializer_list>

#include "agent/infer/jinja/limits.h"

namespace slipstream::agent::infer::jinja {

using base::Status;

namespace {

using ExprPtr = std::unique_ptr<Expr>;
using ExprResult = base::Result<ExprPtr>;

class Parser {
  public:
    explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

    base::Result<ParsedTemplate> run() {
        ParsedTemplate out;
        std::string stop;
        SLIPSTREAM_RETURN_IF_ERROR(body(out.nodes, {}, stop));
        out.names = std::move(names_);
        return out;
    }

  private:
    // Bounds the recursion of both statements and expressions.
    struct DepthGuard {
        explicit DepthGuard(int& d) : d_(d) { ++d_; }
        ~DepthGuard() { --d_; }
        int& d_;
    };

    const Token& cur() const { return t_[i_]; }
    const Token& peek(std::size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
    void next() {
        if (i_ + 1 < t_.size()) ++i_;
    }
    bool is_op(std::string_view op) const { return cur().kind == TokenKind::kOp && cur().text == op; }
    bool is_name(std::string_view n) const { return cur().kind == TokenKind::kName && cur().text == n; }
    bool skip_op(std::string_view op) {
        if (!is_op(op)) return false;
        next();
        return true;
    }
    bool skip_name(std::string_view n) {
        if (!is_name(n)) return false;
        next();
        return true;
    }
    Status error(const std::string& what) const {
        return Status::invalid_argument("template line " + std::to_string(cur().line) + ": " + what);
    }
    std::string describe() const {
        switch (cur().kind) {
            case TokenKind::kEof:
                return "end of template";
            case TokenKind::kBlockEnd:
                return "'%}'";
            case TokenKind::kVarEnd:
                return "'}}'";
            case TokenKind::kText:
                return "template text";
            default:
                return "'" + cur().text + "'";
        }
    }
    Status expect_op(std::string_view op) {
        if (!skip_op(op)) return error("expected '" + std::string(op) + "', got " + describe());
        return Status::ok();
    }
    Status expect(TokenKind k, std::string_view what) {
        if (cur().kind != k) return error("expected " + std::string(what) + ", got " + describe());
        next();
        return Status::ok();
    }
    base::Result<std::string> expect_name() {
        if (cur().kind != TokenKind::kName) return error("expected a name, got " + describe());
        std::string n = cur().text;
        next();
        return n;
    }
    Status check_depth() const {
        if (depth_ > kMaxDepth) {
            return Status::out_of_range("template line " + std::to_string(cur().line) +
                                        ": nesting deeper than kMaxDepth (" + std::to_string(kMaxDepth) + ")");
        }
        return Status::ok();
    }
    // Records the subtree's height; a tree higher than kMaxDepth is refused before it can grow further.
    ExprResult seal(ExprPtr e) {
        int h = 0;
        for (const auto& a : e->args)
            if (a) h = std::max(h, a->height);
        for (const auto& a : e->kwargs)
            h = std::max(h, a->height);
        e->height = h + 1;
        if (e->height > kMaxDepth) {
            return Status::out_of_range("template line " + std::to_string(e->line) +
                                        ": expression nested deeper than kMaxDepth (" + std::to_string(kMaxDepth) +
                                        ")");
        }
        return e;
    }
    ExprPtr make(ExprKind k, int line) {
        auto e = std::make_unique<Expr>();
        e->kind = k;
        e->line = line;
        return e;
    }

    // ---- statements ----

    // Nodes until a block tag named in `stops` (its name is left in `stop`, the stream after it) or the end.
    Status body(NodeList& out, std::initializer_list<std::string_view> stops, std::string& stop) {
        DepthGuard g(depth_);
        SLIPSTREAM_RETURN_IF_ERROR(check_depth());
        for (;;) {
            const Token& tok = cur();
            if (tok.kind == TokenKind::kEof) {
                if (stops.size() == 0) return Status::ok();
                return error("unexpected end of template, expected '" + std::string(*stops.begin()) + "'");
            }
            if (tok.kind == TokenKind::kText) {
                auto n = std::make_unique<Node>();
                n->kind = NodeKind::kText;
                n->text = tok.text;
                out.push_back(std::move(n));
                next();
                continue;
            }
            if (tok.kind == TokenKind::kVarBegin) {
                auto n = std::make_unique<Node>();
                n->kind = NodeKind::kOutput;
                n->line = tok.line;
                next();
                SLIPSTREAM_ASSIGN_OR_RETURN(n->expr, expression());
                SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kVarEnd, "'}}'"));
                out.push_back(std::move(n));
                continue;
            }
            if (tok.kind != TokenKind::kBlockBegin) return error("unexpected " + describe());
            next();
            if (cur().kind != TokenKind::kName) return error("expected a tag name, got " + describe());
            for (std::string_view s : stops) {
                if (cur().text == s) {
                    stop = cur().text;
                    next();
                    return Status::ok();
                }
            }
            SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<Node> n, statement());
            out.push_back(std::move(n));
        }
    }

    base::Result<std::unique_ptr<Node>> statement() {
        const std::string tag = cur().text;
        auto n = std::make_unique<Node>();
        n->line = cur().line;
        next();
        std::string stop;
        if (tag == "if") {
            SLIPSTREAM_RETURN_IF_ERROR(if_rest(*n));
        } else if (tag == "for") {
            SLIPSTREAM_RETURN_IF_ERROR(for_rest(*n));
        } else if (tag == "set") {
            SLIPSTREAM_RETURN_IF_ERROR(set_rest(*n));
        } else if (tag == "macro") {
            SLIPSTREAM_RETURN_IF_ERROR(macro_rest(*n));
        } else if (tag == "break" || tag == "continue") {
            n->kind = tag == "break" ? NodeKind::kBreak : NodeKind::kContinue;
            SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        } else if (tag == "generation") {
            n->kind = NodeKind::kBlock;
            SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
            SLIPSTREAM_RETURN_IF_ERROR(body(n->body, {"endgeneration"}, stop));
            SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        } else {
            return error("unknown or unsupported tag '" + tag + "'");
        }
        return n;
    }

    Status if_rest(Node& n) {
        n.kind = NodeKind::kIf;
        SLIPSTREAM_ASSIGN_OR_RETURN(n.expr, expression());
        SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        std::string stop;
        SLIPSTREAM_RETURN_IF_ERROR(body(n.body, {"endif", "elif", "else"}, stop));
        if (stop == "elif") {
            auto e = std::make_unique<Node>();
            e->line = cur().line;
            DepthGuard g(depth_);
            SLIPSTREAM_RETURN_IF_ERROR(check_depth());
            SLIPSTREAM_RETURN_IF_ERROR(if_rest(*e));
            n.else_body.push_back(std::move(e));
            return Status::ok();
        }
        SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        if (stop == "else") {
            SLIPSTREAM_RETURN_IF_ERROR(body(n.else_body, {"endif"}, stop));
            SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        }
        return Status::ok();
    }

    Status targets(std::vector<std::string>& out) {
        const bool paren = skip_op("(");
        do {
            SLIPSTREAM_ASSIGN_OR_RETURN(std::string name, expect_name());
            out.push_back(std::move(name));
        } while (skip_op(","));
        if (paren) SLIPSTREAM_RETURN_IF_ERROR(expect_op(")"));
        return Status::ok();
    }

    Status for_rest(Node& n) {
        n.kind = NodeKind::kFor;
        SLIPSTREAM_RETURN_IF_ERROR(targets(n.targets));
        if (!skip_name("in")) return error("expected 'in', got " + describe());
        SLIPSTREAM_ASSIGN_OR_RETURN(n.expr, or_expr());
        if (skip_name("if")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(n.filter, expression());
        }
        if (is_name("recursive")) return error("recursive loops are not supported");
        SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        std::string stop;
        SLIPSTREAM_RETURN_IF_ERROR(body(n.body, {"endfor", "else"}, stop));
        SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        if (stop == "else") {
            SLIPSTREAM_RETURN_IF_ERROR(body(n.else_body, {"endfor"}, stop));
            SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        }
        return Status::ok();
    }

    Status set_rest(Node& n) {
        n.kind = NodeKind::kSet;
        SLIPSTREAM_ASSIGN_OR_RETURN(std::string first, expect_name());
        n.targets.push_back(std::move(first));
        if (skip_op(".")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(n.text, expect_name());
        } else {
            while (skip_op(",")) {
                SLIPSTREAM_ASSIGN_OR_RETURN(std::string name, expect_name());
                n.targets.push_back(std::move(name));
            }
        }
        if (cur().kind == TokenKind::kBlockEnd && n.targets.size() == 1) {  // {% set x %}...{% endset %}
            next();
            std::string stop;
            SLIPSTREAM_RETURN_IF_ERROR(body(n.body, {"endset"}, stop));
            return expect(TokenKind::kBlockEnd, "'%}'");
        }
        SLIPSTREAM_RETURN_IF_ERROR(expect_op("="));
        SLIPSTREAM_ASSIGN_OR_RETURN(n.expr, tuple_expression());
        return expect(TokenKind::kBlockEnd, "'%}'");
    }

    Status macro_rest(Node& n) {
        n.kind = NodeKind::kMacro;
        SLIPSTREAM_ASSIGN_OR_RETURN(n.text, expect_name());
        SLIPSTREAM_RETURN_IF_ERROR(expect_op("("));
        while (!is_op(")")) {
            if (!n.targets.empty()) SLIPSTREAM_RETURN_IF_ERROR(expect_op(","));
            SLIPSTREAM_ASSIGN_OR_RETURN(std::string name, expect_name());
            n.targets.push_back(std::move(name));
            ExprPtr def;
            if (skip_op("=")) {
                SLIPSTREAM_ASSIGN_OR_RETURN(def, expression());
            }
            n.defaults.push_back(std::move(def));
        }
        next();
        SLIPSTREAM_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
        std::string stop;
        SLIPSTREAM_RETURN_IF_ERROR(body(n.body, {"endmacro"}, stop));
        if (cur().kind == TokenKind::kName && cur().text == n.text) next();
        return expect(TokenKind::kBlockEnd, "'%}'");
    }

    // ---- expressions ----

    // `a, b` (a list) or one expression.
    ExprResult tuple_expression() {
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr first, expression());
        if (!is_op(",")) return first;
        ExprPtr list = make(ExprKind::kList, first->line);
        list->args.push_back(std::move(first));
        while (skip_op(",")) {
            if (cur().kind == TokenKind::kBlockEnd || cur().kind == TokenKind::kVarEnd) break;
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, expression());
            list->args.push_back(std::move(e));
        }
        return seal(std::move(list));
    }

    ExprResult expression() {
        DepthGuard g(depth_);
        SLIPSTREAM_RETURN_IF_ERROR(check_depth());
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, or_expr());
        while (is_name("if")) {
            const int line = cur().line;
            next();
            ExprPtr c = make(ExprKind::kConditional, line);
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr cond, or_expr());
            ExprPtr otherwise;
            if (skip_name("else")) {
                SLIPSTREAM_ASSIGN_OR_RETURN(otherwise, expression());
            }
            c->args.push_back(std::move(e));
            c->args.push_back(std::move(cond));
            c->args.push_back(std::move(otherwise));
            SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(c)));
        }
        return e;
    }

    ExprResult binary(std::string op, ExprPtr a, ExprPtr b) {
        ExprPtr e = make(ExprKind::kBinary, a->line);
        e->name = std::move(op);
        e->args.push_back(std::move(a));
        e->args.push_back(std::move(b));
        return seal(std::move(e));
    }

    ExprResult or_expr() {
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, and_expr());
        while (skip_name("or")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr r, and_expr());
            SLIPSTREAM_ASSIGN_OR_RETURN(e, binary("or", std::move(e), std::move(r)));
        }
        return e;
    }

    ExprResult and_expr() {
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, not_expr());
        while (skip_name("and")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr r, not_expr());
            SLIPSTREAM_ASSIGN_OR_RETURN(e, binary("and", std::move(e), std::move(r)));
        }
        return e;
    }

    ExprResult not_expr() {
        if (!is_name("not")) return compare();
        DepthGuard g(depth_);
        SLIPSTREAM_RETURN_IF_ERROR(check_depth());
        ExprPtr e = make(ExprKind::kUnary, cur().line);
        next();
        e->name = "not";
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr operand, not_expr());
        e->args.push_back(std::move(operand));
        return seal(std::move(e));
    }

    ExprResult compare() {
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr first, math1());
        ExprPtr cmp;
        for (;;) {
            std::string op;
            if (cur().kind == TokenKind::kOp && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                                 cur().text == "<=" || cur().text == ">" || cur().text == ">=")) {
                op = cur().text;
                next();
            } else if (is_name("in")) {
                op = "in";
                next();
            } else if (is_name("not") && peek().kind == TokenKind::kName && peek().text == "in") {
                op = "not in";
                next();
                next();
            } else {
                break;
            }
            if (!cmp) {
                cmp = make(ExprKind::kCompare, first->line);
                cmp->args.push_back(std::move(first));
            }
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr r, math1());
            cmp->ops.push_back(std::move(op));
            cmp->args.push_back(std::move(r));
        }
        if (cmp) return seal(std::move(cmp));
        return first;
    }

    template <typename Next>
    ExprResult left_assoc(std::initializer_list<std::string_view> ops, Next next_level) {
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, (this->*next_level)());
        for (;;) {
            std::string op;
            for (std::string_view o : ops)
                if (is_op(o)) op = o;
            if (op.empty()) return e;
            next();
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr r, (this->*next_level)());
            SLIPSTREAM_ASSIGN_OR_RETURN(e, binary(std::move(op), std::move(e), std::move(r)));
        }
    }
    ExprResult math1() { return left_assoc({"+", "-"}, &Parser::concat); }
    ExprResult concat() { return left_assoc({"~"}, &Parser::math2); }
    ExprResult math2() { return left_assoc({"*", "/", "//", "%"}, &Parser::power); }
    ExprResult power() { return left_assoc({"**"}, &Parser::unary_with_filters); }
    ExprResult unary_with_filters() { return unary(true); }

    ExprResult unary(bool with_filters) {
        DepthGuard g(depth_);
        SLIPSTREAM_RETURN_IF_ERROR(check_depth());
        ExprPtr e;
        if (is_op("-") || is_op("+")) {
            e = make(ExprKind::kUnary, cur().line);
            e->name = cur().text;
            next();
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr operand, unary(false));
            e->args.push_back(std::move(operand));
            SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(e)));
        } else {
            SLIPSTREAM_ASSIGN_OR_RETURN(e, primary());
        }
        SLIPSTREAM_ASSIGN_OR_RETURN(e, postfix(std::move(e)));
        if (!with_filters) return e;
        return filters_and_tests(std::move(e));
    }

    ExprResult primary() {
        const Token& tok = cur();
        ExprPtr e = make(ExprKind::kLiteral, tok.line);
        switch (tok.kind) {
            case TokenKind::kName:
                if (tok.text == "true" || tok.text == "True" || tok.text == "false" || tok.text == "False") {
                    e->literal = Value::boolean(tok.text[0] == 't' || tok.text[0] == 'T');
                } else if (tok.text == "none" || tok.text == "None") {
                    e->literal = Value::none();
                } else {
                    e->kind = ExprKind::kName;
                    e->name = tok.text;
                    names_.insert(tok.text);
                }
                next();
                return e;
            case TokenKind::kString: {
                std::string s;
                while (cur().kind == TokenKind::kString) {  // adjacent literals concatenate
                    s += cur().text;
                    next();
                }
                e->literal = Value::string(std::move(s));
                return e;
            }
            case TokenKind::kInt:
                e->literal = Value::integer(tok.int_value);
                next();
                return e;
            case TokenKind::kFloat:
                e->literal = Value::number(tok.float_value);
                next();
                return e;
            default:
                break;
        }
        if (skip_op("(")) return paren(tok.line);
        if (skip_op("[")) return list(tok.line);
        if (skip_op("{")) return dict(tok.line);
        return error("unexpected " + describe());
    }

    ExprResult paren(int line) {
        if (skip_op(")")) return make(ExprKind::kList, line);
        SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr first, expression());
        if (skip_op(")")) return first;
        ExprPtr list = make(ExprKind::kList, line);
        list->args.push_back(std::move(first));
        while (skip_op(",")) {
            if (is_op(")")) break;
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, expression());
            list->args.push_back(std::move(e));
        }
        SLIPSTREAM_RETURN_IF_ERROR(expect_op(")"));
        return seal(std::move(list));
    }

    ExprResult list(int line) {
        ExprPtr list = make(ExprKind::kList, line);
        while (!skip_op("]")) {
            if (!list->args.empty()) SLIPSTREAM_RETURN_IF_ERROR(expect_op(","));
            if (skip_op("]")) break;
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr e, expression());
            list->args.push_back(std::move(e));
        }
        return seal(std::move(list));
    }

    ExprResult dict(int line) {
        ExprPtr dict = make(ExprKind::kDict, line);
        while (!skip_op("}")) {
            if (!dict->args.empty()) SLIPSTREAM_RETURN_IF_ERROR(expect_op(","));
            if (skip_op("}")) break;
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr k, expression());
            SLIPSTREAM_RETURN_IF_ERROR(expect_op(":"));
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr v, expression());
            dict->args.push_back(std::move(k));
            dict->args.push_back(std::move(v));
        }
        return seal(std::move(dict));
    }

    ExprResult postfix(ExprPtr e) {
        for (;;) {
            const int line = cur().line;
            if (skip_op(".")) {
                if (cur().kind == TokenKind::kInt) {  // x.0 is x[0]
                    ExprPtr item = make(ExprKind::kItem, line);
                    item->args.push_back(std::move(e));
                    item->args.push_back(make(ExprKind::kLiteral, line));
                    item->args.back()->literal = Value::integer(cur().int_value);
                    next();
                    SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(item)));
                    continue;
                }
                ExprPtr attr = make(ExprKind::kAttr, line);
                SLIPSTREAM_ASSIGN_OR_RETURN(attr->name, expect_name());
                attr->args.push_back(std::move(e));
                SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(attr)));
            } else if (skip_op("[")) {
                SLIPSTREAM_ASSIGN_OR_RETURN(e, subscript(std::move(e), line));
            } else if (skip_op("(")) {
                ExprPtr call = make(ExprKind::kCall, line);
                call->args.push_back(std::move(e));
                SLIPSTREAM_RETURN_IF_ERROR(call_args(*call));
                SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(call)));
            } else {
                return e;
            }
        }
    }

    ExprResult subscript(ExprPtr obj, int line) {
        ExprPtr bounds[3];
        if (!is_op(":")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(bounds[0], expression());
            if (skip_op("]")) {
                ExprPtr item = make(ExprKind::kItem, line);
                item->args.push_back(std::move(obj));
                item->args.push_back(std::move(bounds[0]));
                return seal(std::move(item));
            }
        }
        SLIPSTREAM_RETURN_IF_ERROR(expect_op(":"));
        if (!is_op(":") && !is_op("]")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(bounds[1], expression());
        }
        if (skip_op(":") && !is_op("]")) {
            SLIPSTREAM_ASSIGN_OR_RETURN(bounds[2], expression());
        }
        SLIPSTREAM_RETURN_IF_ERROR(expect_op("]"));
        ExprPtr slice = make(ExprKind::kSlice, line);
        slice->args.push_back(std::move(obj));
        for (auto& b : bounds)
            slice->args.push_back(std::move(b));
        return seal(std::move(slice));
    }

    // After '(': positional and name=value arguments up to ')'.
    Status call_args(Expr& call) {
        bool first = true;
        while (!skip_op(")")) {
            if (!first) SLIPSTREAM_RETURN_IF_ERROR(expect_op(","));
            first = false;
            if (skip_op(")")) break;
            if (cur().kind == TokenKind::kName && peek().kind == TokenKind::kOp && peek().text == "=") {
                call.kwarg_names.push_back(cur().text);
                next();
                next();
                SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr v, expression());
                call.kwargs.push_back(std::move(v));
                continue;
            }
            if (!call.kwargs.empty()) return error("positional argument after a keyword argument");
            SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr v, expression());
            call.args.push_back(std::move(v));
        }
        return Status::ok();
    }

    ExprResult filters_and_tests(ExprPtr e) {
        for (;;) {
            const int line = cur().line;
            if (skip_op("|")) {
                ExprPtr f = make(ExprKind::kFilter, line);
                SLIPSTREAM_ASSIGN_OR_RETURN(f->name, expect_name());
                f->args.push_back(std::move(e));
                if (skip_op("(")) SLIPSTREAM_RETURN_IF_ERROR(call_args(*f));
                SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(f)));
            } else if (skip_name("is")) {
                ExprPtr t = make(ExprKind::kTest, line);
                t->negated = skip_name("not");
                SLIPSTREAM_ASSIGN_OR_RETURN(t->name, expect_name());
                t->args.push_back(std::move(e));
                if (skip_op("(")) {
                    SLIPSTREAM_RETURN_IF_ERROR(call_args(*t));
                } else if (test_argument_follows()) {
                    SLIPSTREAM_ASSIGN_OR_RETURN(ExprPtr arg, primary());
                    SLIPSTREAM_ASSIGN_OR_RETURN(arg, postfix(std::move(arg)));
                    t->args.push_back(std::move(arg));
                }
                SLIPSTREAM_ASSIGN_OR_RETURN(e, seal(std::move(t)));
            } else {
                return e;
            }
        }
    }

    // `x is divisibleby 3`: one argument without parentheses, unless what follows continues the expression.
    bool test_argument_follows() const {
        switch (cur().kind) {
            case TokenKind::kName:
                return cur().text != "else" && cur().text != "or" && cur().text != "and" && cur().text != "is" &&
                       cur().text != "if";
            case TokenKind::kString:
            case TokenKind::kInt:
            case TokenKind::kFloat:
                return true;
            case TokenKind::kOp:
                return cur().text == "[" || cur().text == "{";
            default:
                return false;
        }
    }

    std::vector<Token> t_;
    std::size_t i_ = 0;
    int depth_ = 0;
    std::set<std::string> names_;
};

}  // namespace

base::Result<ParsedTemplate> parse(std::vector<Token> tokens) {
    return Parser(std::move(tokens)).run();
}

}  // namespace slipstream::agent::infer::jinja
