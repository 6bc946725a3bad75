-- wrk script: one request shape from the command line, a JSON line of results at the end.
--   wrk ... -s request.lua URL -- METHOD BODY_FILE|- "Header: value" ...
local counts = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = args[1] or "GET"
  local body_file = args[2]
  if body_file and body_file ~= "-" then
    local f = assert(io.open(body_file, "rb"))
    wrk.body = f:read("*a")
    f:close()
  end
  for i = 3, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    if name then wrk.headers[name] = value end
  end
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for code, n in pairs(s) do merged[code] = (merged[code] or 0) + n end
  end
  local parts = {}
  for code, n in pairs(merged) do table.insert(parts, string.format('"%d": %d', code, n)) end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests": %d, "seconds": %.2f, "rps": %.0f, "p50_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, ' ..
    '"socket_errors": %d, "statuses": {%s}}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    table.concat(parts, ", ")))
end
