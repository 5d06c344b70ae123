-- wrk script: each connection pauses `ms` milliseconds (args: ms, default 1) after every response, so the
-- offered load stays below every server's capacity and the latency percentiles show the server's response
-- time rather than the client's own queue (wrk measures from the request's send, not its pause).
init = function(args)
  pause_ms = tonumber(args[1]) or 1
end

delay = function()
  return pause_ms
end
