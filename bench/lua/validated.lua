-- wrk script: POSTs the valid body 9 times in 10 and the invalid body once (args: valid file, invalid file).
local function slurp(path)
  local file = assert(io.open(path, "rb"))
  local body = file:read("*a")
  file:close()
  return body
end

init = function(args)
  local headers = {["Content-Type"] = "application/json"}
  valid = wrk.format("POST", nil, headers, slurp(args[1]))
  invalid = wrk.format("POST", nil, headers, slurp(args[2]))
  counter = 0
end

request = function()
  counter = counter + 1
  if counter % 10 == 0 then
    return invalid
  end
  return valid
end
