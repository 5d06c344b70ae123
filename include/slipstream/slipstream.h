// The whole public C++ API in one include.
#pragma once

#include "slipstream/app.h"
#include "slipstream/logging.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"
#include "slipstream/sse.h"
#include "slipstream/websocket.h"
