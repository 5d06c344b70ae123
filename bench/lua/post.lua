-- wrk script: POSTs a JSON body read from a file (args: path of the body file).
init = function(args)
  local file = assert(io.open(args[1], "rb"))
  local body = file:read("*a")
  file:close()
  prepared = wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end

request = function()
  return prepared
end
