-- The concurrency sweep's load: wrk holds its connections each with one request outstanding (a
-- closed loop), and this script makes it report as data. Its arguments, after wrk's `--`: the
-- connections, how long to spread their first requests over (ms), and when the counted window
-- starts (ms from the thread's start).
--
-- Why the spread and the window: wrk opens every connection at once, so with a fixed wait D every
-- connection would answer in step, C answers at D, 2D, ... A count of answers over wrk's whole run
-- then misses up to one D in its last cycle and gains nothing for the first (10 s at D = 1 s
-- counted 9 cycles: 10% short). So each connection's first request waits a random share of the
-- spread, which puts their cycles out of step, and the rate is counted only over answers after the
-- window's start, by when every connection is past its first request.
--
-- wrk counts an answer that is not 2xx or 3xx only as an error; each thread tallies every status
-- itself and done() adds them up, printing one JSON object after a marker, which the harness reads.
-- Latencies are wrk's: from a request's first byte written to its answer's last byte read, in
-- microseconds. A request wrk gave up on (its --timeout) has no latency and counts as a timeout.
local ffi = require("ffi")
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } lab_timespec;
  int clock_gettime(int clock, lab_timespec *now);
]])
local CLOCK_MONOTONIC = 1
local now = ffi.new("lab_timespec")
local function clockMs()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now)
  return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  connections = tonumber(args[1])
  spreadMs = tonumber(args[2])
  windowFromMs = tonumber(args[3])
  startedMs = clockMs()
  firstRequests = 0
  statuses = {}
  inWindow = 0
  math.randomseed(os.time())
end

function delay()
  if firstRequests < connections then
    firstRequests = firstRequests + 1
    return math.random(0, spreadMs)
  end
  return 0
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if clockMs() - startedMs >= windowFromMs then
    inWindow = inWindow + 1
  end
end

function done(summary, latency, requests)
  local byStatus = {}
  local answeredInWindow = 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      byStatus[tostring(status)] = (byStatus[tostring(status)] or 0) + count
    end
    answeredInWindow = answeredInWindow + thread:get("inWindow")
  end
  local windowFromMs = threads[1]:get("windowFromMs")
  local parts = {}
  for status, count in pairs(byStatus) do
    table.insert(parts, string.format('"%s":%d', status, count))
  end
  io.write("LAB-WRK-RESULT ")
  io.write(string.format(
    '{"durationUs":%d,"requests":%d,"bytes":%d,"windowFromMs":%d,"answeredInWindow":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"latencyUs":{"min":%d,"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d},' ..
      '"statuses":{%s}}\n',
    summary.duration, summary.requests, summary.bytes, windowFromMs, answeredInWindow,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency.min, latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max,
    table.concat(parts, ",")))
end
