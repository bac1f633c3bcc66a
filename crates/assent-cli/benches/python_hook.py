"""The baseline of docs/benchmarks.md: a minimal Claude Code PreToolUse hook in Python making
the same HTTP call as `assent gate claude-code` (stdlib only, no error handling beyond deny)."""

import json
import os
import sys
import urllib.request

with open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin as source:
    payload = json.load(source)
tool_input = payload.get("tool_input", {})
request = {
    "run_id": payload["session_id"],
    "task_id": payload["session_id"],
    "requested_by": "agent",
    "action": {"kind": "shell", "command": tool_input["command"], "cwd": payload["cwd"]},
    "context": {"repo": payload["cwd"]},
    "reason": tool_input.get("description", ""),
}
http = urllib.request.Request(
    os.environ["ASSENT_URL"] + "/v1/actions",
    data=json.dumps(request).encode(),
    headers={"Authorization": "Bearer " + os.environ["ASSENT_TOKEN"], "Content-Type": "application/json"},
)
try:
    with urllib.request.urlopen(http, timeout=5) as response:
        answer = json.load(response)
    decision = "allow" if answer["status"] == "allowed" else "deny"
    reason = "; ".join(answer.get("reasons", []))
except Exception as err:  # noqa: BLE001 - fail closed
    decision, reason = "deny", str(err)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}}))
