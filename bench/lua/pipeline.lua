-- wrk script: sends the request pipelined `depth` times per write (args: depth, default 16).
init = function(args)
  local depth = tonumber(args[1]) or 16
  local batch = {}
  for i = 1, depth do
    batch[i] = wrk.format()
  end
  pipelined = table.concat(batch)
end

request = function()
  return pipelined
end
