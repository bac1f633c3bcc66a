// Assent gate for opencode, written by `assent install opencode` (do not edit: a re-install
// rewrites it, `assent uninstall opencode` removes it). Every tool call goes to
// `assent gate opencode` before opencode's own permission check; anything but Assent's
// readable allow (or ask, with --on-unavailable ask) throws, which blocks the call and gives
// the model the reason. A plugin that fails to load fails OPEN: `assent doctor` is the guard.
import { spawn } from "node:child_process";

const BIN = __ASSENT_BIN__;
const ARGS = __ASSENT_ARGS__;

function gate(payload) {
  return new Promise((resolve) => {
    const blocked = (why) => resolve({ decision: "deny", reason: `Assent could not check this call (${why}); blocked` });
    let child;
    try {
      child = spawn(BIN, ARGS, { stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      blocked(err.code || err.message);
      return;
    }
    let out = "";
    let errText = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (errText += d));
    child.on("error", (err) => blocked(err.code || err.message));
    child.on("close", (code) => {
      try {
        const answer = JSON.parse(out);
        if (answer && ["allow", "deny", "ask"].includes(answer.decision)) return resolve(answer);
      } catch {}
      blocked(`exit ${code}${errText.trim() ? ": " + errText.trim() : ""}`);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const AssentGate = async (ctx) => ({
  "tool.execute.before": async (input, output) => {
    const answer = await gate({
      hook_event_name: "PreToolUse", session_id: input.sessionID, tool_use_id: input.callID,
      cwd: ctx.directory, tool_name: input.tool, tool_input: (output && output.args) || {},
    });
    if (answer.decision === "allow" || answer.decision === "ask") return;
    throw new Error(answer.reason || "Assent: not allowed");
  },
  "tool.execute.after": async (input) => {
    await gate({
      hook_event_name: "PostToolUse", session_id: input.sessionID, tool_use_id: input.callID,
      cwd: ctx.directory, tool_name: input.tool, tool_input: input.args || {},
    });
  },
});
