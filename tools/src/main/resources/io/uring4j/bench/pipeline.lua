-- wrk script for `./uring4j bench http --pipeline N`: each write carries N copies of wrk's request
-- (TechEmpower's plaintext load); wrk counts every response.
init = function(args)
  local depth = tonumber(args[1]) or 1
  local requests = {}
  for i = 1, depth do
    requests[i] = wrk.format()
  end
  batch = table.concat(requests)
end

request = function()
  return batch
end
