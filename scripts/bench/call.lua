-- wrk script of scripts/bench-gateways.sh: one POST per call, every answer checked.
--
-- The request comes from the environment: BENCH_BODY (the JSON body), BENCH_HEADERS (lines
-- of "Name: value"). An answer counts as good when its status is 200 and its body holds
-- BENCH_EXPECT (the echoed text) and no tool error; the bad ones are printed at the end, so a
-- gateway that answers fast but wrong does not pass for fast.

wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
for line in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^\n]+") do
   local name, value = string.match(line, "^([^:]+):%s*(.*)$")
   if name then
      wrk.headers[name] = value
   end
end
local expect = os.getenv("BENCH_EXPECT")

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   bad = 0
   first_bad = ""
end

function response(status, headers, body)
   local good = status == 200
      and string.find(body, expect, 1, true) ~= nil
      and string.find(body, '"isError":true', 1, true) == nil
   if not good then
      bad = bad + 1
      if first_bad == "" then
         first_bad = status .. " " .. string.sub(body, 1, 300)
      end
   end
end

function done(summary, latency, requests)
   local total_bad = 0
   local example = ""
   for _, thread in ipairs(threads) do
      total_bad = total_bad + thread:get("bad")
      local seen = thread:get("first_bad")
      if example == "" and seen ~= "" then
         example = seen
      end
   end
   io.write(string.format("BENCH p50_us=%d requests=%d bad=%d\n",
      latency:percentile(50), summary.requests, total_bad))
   if example ~= "" then
      io.write("BENCH first_bad=" .. example .. "\n")
   end
end
