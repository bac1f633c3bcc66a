//! `assent gate mcp`: a stdio MCP server with one tool, `approve`, for
//! `claude -p --permission-prompt-tool mcp__assent__approve`. Claude Code calls it with
//! `tool_name`, `input` and `tool_use_id`; the text answer is
//! `{"behavior":"allow","updatedInput":…}` or `{"behavior":"deny","message":"…"}`.
//! The decision path is the hook gate's; anything but an allow is a deny.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use assent_client::{blocking, ClientConfig};
use assent_core::hook::{action_from_claude_hook, HookDefaults};
use clap::Args;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde_json::{json, Value};

use assent_gate::outcome::{decide, parse_seconds, Deadlines, Outcome};
use assent_gate::repo::git_root;
use assent_gate::ServiceArgs;

#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person per tool call, in seconds.
    #[arg(long, default_value = "290", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// The run the calls belong to [default: $ASSENT_RUN_ID, else one per server process].
    #[arg(long = "run", env = "ASSENT_RUN_ID")]
    pub run: Option<String>,
    /// Task id [default: the run id].
    #[arg(long = "task")]
    pub task: Option<String>,
}

/// The `approve` tool's input, as Claude Code sends it.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ApproveInput {
    /// The tool Claude Code wants to run (`Bash`, `Write`, `mcp__github__create_pr`, …).
    pub tool_name: String,
    /// The tool's input.
    pub input: serde_json::Map<String, Value>,
    /// Claude Code's id of this tool call (the idempotency key).
    #[serde(default)]
    pub tool_use_id: Option<String>,
}

#[derive(Debug, Clone)]
struct PermissionTool {
    #[allow(dead_code, reason = "read by the code #[tool_handler] generates")]
    tool_router: ToolRouter<Self>,
    args: Arc<McpArgs>,
    run_id: Arc<str>,
}

#[tool_router]
impl PermissionTool {
    /// Asks Assent whether Claude Code may run a tool; waits for a person when needed.
    #[tool(
        description = "Ask Assent whether a tool call may run. Answers {\"behavior\":\"allow\",\"updatedInput\":…} or {\"behavior\":\"deny\",\"message\":…}."
    )]
    async fn approve(&self, Parameters(input): Parameters<ApproveInput>) -> String {
        let args = Arc::clone(&self.args);
        let run_id = Arc::clone(&self.run_id);
        let answer = tokio::task::spawn_blocking(move || answer(&args, &run_id, input)).await;
        answer
            .unwrap_or_else(|_| deny("Assent: the permission check failed; not allowed"))
            .to_string()
    }
}

#[tool_handler]
impl ServerHandler for PermissionTool {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("Assent approval desk: permission prompts for Claude Code.")
    }
}

fn deny(message: &str) -> Value {
    json!({ "behavior": "deny", "message": message })
}

/// The permission answer for one call (blocking: runs the shared decision path).
fn answer(args: &McpArgs, run_id: &str, input: ApproveInput) -> Value {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into());
    let payload = json!({
        "session_id": run_id,
        "cwd": cwd,
        "hook_event_name": "PermissionRequest",
        "tool_name": input.tool_name,
        "tool_input": input.input,
        "tool_use_id": input.tool_use_id,
    });
    let root = git_root(std::path::Path::new(&cwd));
    let defaults = HookDefaults {
        task_id: args.task.clone(),
        repo: root.as_ref().map(|p| p.to_string_lossy().into_owned()),
        cwd: None,
    };
    let mut request = match action_from_claude_hook(&payload, &defaults) {
        Ok(request) => request,
        Err(err) => {
            return deny(&format!(
                "Assent: cannot read the tool call ({err}); not allowed"
            ))
        }
    };
    assent_gate::change::describe(&mut request, &payload, root.as_deref());
    let client = ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref())
        .and_then(|config| blocking::Client::from_config(&config));
    let client = match client {
        Ok(client) => client,
        Err(err) => return deny(&format!("Assent: {err}; not allowed")),
    };
    let deadlines = Deadlines::hook(args.submit_timeout, args.wait);
    match decide(&client, &request, deadlines).outcome {
        Outcome::Allowed { .. } => json!({ "behavior": "allow", "updatedInput": input.input }),
        other => deny(other.reason()),
    }
}

pub fn run(args: &McpArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("assent gate mcp: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    let run_id = args
        .run
        .clone()
        .unwrap_or_else(|| format!("mcp-{}", std::process::id()));
    let server = PermissionTool {
        tool_router: PermissionTool::tool_router(),
        args: Arc::new(args.clone()),
        run_id: run_id.into(),
    };
    let result = runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())
    });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("assent gate mcp: {err}");
            ExitCode::FAILURE
        }
    }
}
