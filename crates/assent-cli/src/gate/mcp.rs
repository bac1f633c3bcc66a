//! `assent gate mcp`: a stdio MCP server with one tool, `approve`, for
//! `claude -p --permission-prompt-tool mcp__assent__approve`. Claude Code calls it with
//! `tool_name`, `input` and `tool_use_id`; the text answer is
//! `{"behavior":"allow","updatedInput":…}` or `{"behavior":"deny","message":"…"}`.
//! The decision path is the hook gate's; anything but an allow is a deny.
//!
//! A client that declares the MCP tasks extension (`io.modelcontextprotocol/tasks`) is not
//! held while a person decides: a call that needs a person is answered at once with a task
//! ([`super::mcp_tasks`]) it polls with `tasks/get` or ends with `tasks/cancel`. Calls the
//! policy answers (auto, block, a covering grant) answer at once either way.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use assent_client::{blocking, ClientConfig};
use assent_core::hook::{action_from_claude_hook, HookDefaults};
use assent_core::ActionRequest;
use clap::Args;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CancelTaskParams, CreateTaskResult, GetTaskParams, GetTaskResult,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::Value;

use super::mcp_tasks::{allow, deny, tool_result, TaskBook};
use assent_gate::outcome::{answered, decide, parse_seconds, unreached, Deadlines, Outcome};
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
    /// For clients with MCP tasks: how long a task waits for a person before it answers deny
    /// (nobody decided), in seconds.
    #[arg(long, default_value = "3600", value_parser = parse_seconds)]
    pub task_ttl: Duration,
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
    tasks: Arc<TaskBook>,
}

#[tool_router]
impl PermissionTool {
    /// Asks Assent whether Claude Code may run a tool; waits for a person when needed.
    #[tool(
        description = "Ask Assent whether a tool call may run. Answers {\"behavior\":\"allow\",\"updatedInput\":…} or {\"behavior\":\"deny\",\"message\":…}."
    )]
    async fn approve(
        &self,
        Parameters(input): Parameters<ApproveInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let args = Arc::clone(&self.args);
        let run_id = Arc::clone(&self.run_id);
        let as_task = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        let answer =
            tokio::task::spawn_blocking(move || answer(&args, &run_id, input, as_task)).await;
        match answer {
            Ok(Answer::Now(answer)) => CallToolResponse::Complete(tool_result(&answer)),
            Ok(Answer::Person { approval_id, input }) => {
                let task = self.tasks.open(&approval_id, input, self.args.task_ttl);
                CallToolResponse::Task(CreateTaskResult::new(task))
            }
            Err(_) => CallToolResponse::Complete(tool_result(&deny(
                "Assent: the permission check failed; not allowed",
            ))),
        }
    }
}

#[tool_handler]
impl ServerHandler for PermissionTool {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_instructions("Assent approval desk: permission prompts for Claude Code.")
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let (tasks, args) = (Arc::clone(&self.tasks), Arc::clone(&self.args));
        let task_id = request.task_id;
        let found = tokio::task::spawn_blocking(move || {
            let client = client(&args).ok();
            tasks.get(&task_id, client.as_ref()).ok_or(task_id)
        })
        .await
        .map_err(|err| McpError::internal_error(format!("the task check failed: {err}"), None))?;
        match found {
            Ok(task) => Ok(GetTaskResult::new(task)),
            Err(task_id) => Err(unknown_task(&task_id)),
        }
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.tasks.cancel(&request.task_id) {
            Ok(())
        } else {
            Err(unknown_task(&request.task_id))
        }
    }
}

fn unknown_task(task_id: &str) -> McpError {
    let shown: String = task_id.chars().take(80).collect();
    McpError::invalid_params(format!("no task {shown:?} in this session"), None)
}

/// What one call's check found.
enum Answer {
    /// The permission answer, now.
    Now(Value),
    /// A person must decide (only when the client takes tasks).
    Person {
        approval_id: String,
        input: serde_json::Map<String, Value>,
    },
}

fn client(args: &McpArgs) -> Result<blocking::Client, assent_client::ClientError> {
    ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref())
        .and_then(|config| blocking::Client::from_config(&config))
}

/// The permission answer for one call (blocking: runs the shared decision path). With
/// `as_task`, a call a person must decide is not waited on: its approval is returned.
fn answer(args: &McpArgs, run_id: &str, input: ApproveInput, as_task: bool) -> Answer {
    let (client, request) = match prepare(args, run_id, &input) {
        Ok(prepared) => prepared,
        Err(answer) => return Answer::Now(answer),
    };
    if !as_task {
        let deadlines = Deadlines::hook(args.submit_timeout, args.wait);
        return Answer::Now(match decide(&client, &request, deadlines).outcome {
            Outcome::Allowed { .. } => allow(&input.input),
            other => deny(other.reason()),
        });
    }
    let submitted = match client.submit(&request, Instant::now() + args.submit_timeout) {
        Ok(submitted) => submitted,
        Err(err) => {
            return Answer::Now(deny(unreached(&err, args.submit_timeout).outcome.reason()))
        }
    };
    match (answered(&submitted), submitted.approval_id) {
        (Some(Outcome::Allowed { .. }), _) => Answer::Now(allow(&input.input)),
        (Some(other), _) => Answer::Now(deny(other.reason())),
        (None, Some(approval_id)) => Answer::Person {
            approval_id,
            input: input.input,
        },
        (None, None) => Answer::Now(deny(
            "Assent: the service answered pending without an approval id; not allowed",
        )),
    }
}

/// The service client and the action for one call, or the denial saying why there is none.
fn prepare(
    args: &McpArgs,
    run_id: &str,
    input: &ApproveInput,
) -> Result<(blocking::Client, ActionRequest), Value> {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into());
    let payload = serde_json::json!({
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
    let mut request = action_from_claude_hook(&payload, &defaults).map_err(|err| {
        deny(&format!(
            "Assent: cannot read the tool call ({err}); not allowed"
        ))
    })?;
    assent_gate::change::describe(&mut request, &payload, root.as_deref());
    let client = client(args).map_err(|err| deny(&format!("Assent: {err}; not allowed")))?;
    Ok((client, request))
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
        tasks: Arc::new(TaskBook::default()),
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
