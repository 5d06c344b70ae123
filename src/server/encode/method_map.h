// Maps the parser's method enum to the router's.
#pragma once

#include <string_view>

#include "http/h1/request_head.h"
#include "router/method.h"

namespace slipstream::server {

inline Method to_router_method(http::h1::Method m, std::string_view token) {
    switch (m) {
        case http::h1::Method::kGet:
            return Method::kGet;
        case http::h1::Method::kHead:
            return Method::kHead;
        case http::h1::Method::kPost:
            return Method::kPost;
        case http::h1::Method::kPut:
            return Method::kPut;
        case http::h1::Method::kDelete:
            return Method::kDelete;
        case http::h1::Method::kPatch:
            return Method::kPatch;
        case http::h1::Method::kOptions:
            return Method::kOptions;
        case http::h1::Method::kConnect:
            return Method::kConnect;
        case http::h1::Method::kTrace:
            return Method::kTrace;
        case http::h1::Method::kOther:
            return parse_method(token);
    }
    return Method::kOther;
}

}  // namespace slipstream::server
