-- wrk script: POST /v1/actions with an action the policy decides `auto` (ls in a trusted repo).
-- Every answer is an audited decision: an actions row and an audit row, committed before the
-- answer is sent (fsynced too only with `assent serve --sync-policy-decisions`).
local token = os.getenv("ASSENT_TOKEN")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token
wrk.body = '{"run_id":"bench","task_id":"t","requested_by":"agent",' ..
  '"action":{"kind":"shell","command":"ls -la src","cwd":"/home/dev/shop"},' ..
  '"context":{"repo":"/home/dev/shop","repo_trust":"trusted"},"reason":"bench"}'

local non200 = 0
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"status":"allowed"', 1, true) then
    non200 = non200 + 1
  end
end

done = function(summary, latency, requests)
  io.write(string.format("requests=%d rps=%.0f p50=%.2fms p99=%.2fms errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write))
end
