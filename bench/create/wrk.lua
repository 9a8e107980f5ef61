-- wrk script for bench/create: request from env, counts responses whose status is not
-- BENCH_EXPECT as errors, prints one JSON line at the end (parsed by run.ts).
wrk.method = os.getenv("BENCH_METHOD") or "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local auth = os.getenv("BENCH_AUTH")
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end
local expect = tonumber(os.getenv("BENCH_EXPECT") or "200")

-- BENCH_ADDRS="127.0.0.1:p1,127.0.0.1:p2,...": thread i connects to address i (mod n), so several
-- instances share the load without a load balancer (run with -t a multiple of n).
local addrs = {}
for hostport in string.gmatch(os.getenv("BENCH_ADDRS") or "", "[^,]+") do
  local host, port = string.match(hostport, "^(.+):(%d+)$")
  table.insert(addrs, wrk.lookup(host, port)[1])
end

local threads = {}
function setup(thread)
  if #addrs > 0 then thread.addr = addrs[(#threads % #addrs) + 1] end
  table.insert(threads, thread)
end

function init(args)
  ok = 0
  bad = 0
  first_bad = ""
end

function response(status, headers, body)
  if status == expect then
    ok = ok + 1
  else
    bad = bad + 1
    if first_bad == "" then first_bad = tostring(status) .. " " .. string.sub(body or "", 1, 200) end
  end
end

function done(summary, latency, requests)
  local ok_total, bad_total, sample = 0, 0, ""
  for _, t in ipairs(threads) do
    ok_total = ok_total + t:get("ok")
    bad_total = bad_total + t:get("bad")
    local fb = t:get("first_bad")
    if sample == "" and fb and fb ~= "" then sample = fb end
  end
  local e = summary.errors
  io.write(string.format(
    '\nBENCH_JSON {"requests":%d,"duration_us":%d,"ok":%d,"bad":%d,"socket_errors":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"sample":"%s"}\n',
    summary.requests, summary.duration, ok_total, bad_total,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    (sample:gsub('[%c"\\]', ' '))))
end
