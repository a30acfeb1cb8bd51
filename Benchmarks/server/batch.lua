-- POST /api/v1/events/batch with 500 new events per request (wrk -s batch.lua). Ids are UUIDv7 made from the
-- current second and a per-thread counter, and timestamps are distinct, so every item is a real insert.
local bit = require("bit")
local type_id = os.getenv("TRENDY_BENCH_TYPE") or "0190f5c0-3f00-7a11-8b22-000000000001"
local counter = 0
local thread_tag = 0

-- Two wrk processes start in the same second, one per user: the token keeps their ids apart.
local token = os.getenv("TRENDY_BENCH_TOKEN") or "bench"
local salt = 0
for i = 1, #token do salt = salt * 31 + string.byte(token, i) end
math.randomseed(os.time() + salt % 1000003)
local run = math.random(0, 0xfffff)

function setup(thread)
  thread:set("tag", math.random(0, 0xfff))
  thread:set("run", run)
end

function init(args)
  thread_tag = tag or math.random(0, 0xfff)
  run = run
end

local function uuid7(ms, n)
  local high = math.floor(ms / 65536)
  local low = ms % 65536
  return string.format("%08x-%04x-7%03x-%04x-%04x%08x", high, low, thread_tag, 0x8000 + (n % 0x4000),
    math.floor(n / 0x100000000) % 0x10000, n % 0x100000000)
end

local function iso(ms)
  local seconds = math.floor(ms / 1000)
  return os.date("!%Y-%m-%dT%H:%M:%S", seconds) .. string.format(".%03dZ", ms % 1000)
end

function request()
  local now_ms = os.time() * 1000 - 5000
  local items = {}
  for i = 1, 500 do
    counter = counter + 1
    local stamp = 1600000000000 + (run % 1000) * 1000000000 + thread_tag * 100000 + counter
    items[i] = string.format('{"id":"%s","event_type_id":"%s","timestamp":"%s","is_all_day":false,"source_type":"manual","properties":{}}',
      uuid7(now_ms, run * 0x10000000 + counter), type_id, iso(stamp))
  end
  local body = '{"events":[' .. table.concat(items, ",") .. ']}'
  local headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = string.format("bench-%d-%d-%d", run, thread_tag, counter) }
  return wrk.format("POST", "/api/v1/events/batch", headers, body)
end

function response(status, headers, body)
  if status ~= 201 then
    io.stderr:write("unexpected status " .. status .. ": " .. string.sub(body, 1, 200) .. "\n")
  end
end
