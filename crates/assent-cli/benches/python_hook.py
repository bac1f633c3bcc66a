"""The baseline of docs/benchmarks.md: a minimal Claude Code PreToolUse hook in Python making
the same HTTP call as `assent gate claude-code` (stdlib only, no error handling beyond deny)."""

import json
import os
import sys
import urllib.request


def request_of(payload):
    """The submit for a PreToolUse payload of a Bash call (gate_fast.sh's C floor sends it too)."""
    tool_input = payload.get("tool_input", {})
    return {
        "run_id": payload["session_id"],
        "task_id": payload["session_id"],
        "requested_by": "agent",
        "action": {"kind": "shell", "command": tool_input["command"], "cwd": payload["cwd"]},
        "context": {"repo": payload["cwd"]},
        "reason": tool_input.get("description", ""),
    }


def main():
    with open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin as source:
        payload = json.load(source)
    http = urllib.request.Request(
        os.environ["ASSENT_URL"] + "/v1/actions",
        data=json.dumps(request_of(payload)).encode(),
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


if __name__ == "__main__":
    main()
