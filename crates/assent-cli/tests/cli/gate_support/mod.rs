//! Shared by the gate, request and install tests: a real `assent serve` on a free port, real
//! gate processes, Claude Code payloads, and tiny misbehaving HTTP servers.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub mod codex;
pub mod git;
pub mod tap;
pub mod team;

pub const BIN: &str = env!("CARGO_BIN_EXE_assent");

/// The fast gate `assent-gate` (crate assent-gate) beside [`BIN`], as `scripts/setup.sh`
/// installs it. `cargo test -p assent-cli` builds only this package's binaries, so it is built
/// here first, once, for the same profile and target dir (a no-op when `cargo test
/// --workspace` built it): never an older build left there.
pub fn fast_gate() -> &'static Path {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let profile = Path::new(BIN).parent().unwrap();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .args([
                "build",
                "--quiet",
                "-p",
                "assent-gate",
                "--bin",
                "assent-gate",
            ])
            .arg("--target-dir")
            .arg(profile.parent().unwrap())
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status().unwrap();
        assert!(status.success(), "cargo build -p assent-gate: {status}");
        profile.join("assent-gate")
    })
}

/// A running `assent serve` with its own data dir; killed on drop.
pub struct Service {
    child: Child,
    pub url: String,
    pub requester: String,
    pub approver: String,
    pub dir: tempfile::TempDir,
    /// Its data dir: its audit key, and (on SQLite) its token files and database.
    pub data_dir: PathBuf,
    /// The PostgreSQL database it serves from (`--database`); `None` on the data dir's SQLite.
    pub database: Option<String>,
}

pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Service {
    pub fn start() -> Service {
        Service::start_with_policy(None)
    }

    pub fn start_with_policy(policy_toml: Option<&str>) -> Service {
        Service::start_with_policy_env(policy_toml, &[])
    }

    /// As [`Service::start_with_policy`], with `env` set for the service process only (never
    /// in this test process, whose environment every test of the binary shares).
    pub fn start_with_policy_env(policy_toml: Option<&str>, env: &[(&str, &str)]) -> Service {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().to_path_buf();
        Service::launch(dir, None, Some(data_dir), policy_toml, env, None)
    }

    /// As [`Service::start_with_policy`], serving from the PostgreSQL `database`
    /// (`--database`; its data dir still holds its audit key). Such a service writes no token
    /// files: its tokens are made as a team makes them ([`team::team`]: `assent people add`
    /// and `assent agents add` with `--database`, which print them) — the person `alice`, with
    /// every role, as [`Service::approver`], the agent `ci-bot` as [`Service::requester`].
    pub fn start_on_database(policy_toml: Option<&str>, database: &str) -> Service {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().to_path_buf();
        Service::launch(dir, None, Some(data_dir), policy_toml, &[], Some(database))
    }

    /// `assent serve` run by a user whose home is `home`, with no XDG or agent variables set:
    /// its data dir is the default one under that home (`~/.local/share/assent`) unless
    /// `data_dir` names another.
    pub fn start_in_home(
        home: &Path,
        data_dir: Option<&Path>,
        policy_toml: Option<&str>,
    ) -> Service {
        let dir = tempfile::tempdir().unwrap();
        Service::launch(
            dir,
            Some(home),
            data_dir.map(Path::to_path_buf),
            policy_toml,
            &[],
            None,
        )
    }

    /// The policy file the service was started with (see [`Service::start_with_policy`]).
    pub fn policy_file(&self) -> PathBuf {
        self.dir.path().join("policy.toml")
    }

    fn launch(
        dir: tempfile::TempDir,
        home: Option<&Path>,
        data_dir: Option<PathBuf>,
        policy_toml: Option<&str>,
        env: &[(&str, &str)],
        database: Option<&str>,
    ) -> Service {
        // Port 0: the service binds a port of its own and prints it. A port picked here and
        // released could be taken by another test's service meanwhile, whose /healthz would
        // then answer for this one (its tokens missing from this data dir).
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(data_dir) = &data_dir {
            cmd.arg("--data-dir").arg(data_dir);
        }
        if let Some(database) = database {
            cmd.args(["--database", database])
                .env_remove("ASSENT_DATABASE_URL");
        }
        if let Some(home) = home {
            cmd.env("HOME", home);
            for var in [
                "XDG_DATA_HOME",
                "XDG_CONFIG_HOME",
                "XDG_STATE_HOME",
                "CODEX_HOME",
                "CLAUDE_CONFIG_DIR",
            ] {
                cmd.env_remove(var);
            }
        }
        let data_dir = data_dir.unwrap_or_else(|| {
            home.expect("a service without --data-dir runs in a home")
                .join(".local/share/assent")
        });
        if let Some(toml) = policy_toml {
            let path = dir.path().join("policy.toml");
            std::fs::write(&path, toml).unwrap();
            cmd.arg("--policy").arg(path);
        }
        let mut child = cmd.spawn().unwrap();
        let url = listening_url(&mut child);
        let mut service = Service {
            child,
            url,
            requester: String::new(),
            approver: String::new(),
            dir,
            data_dir,
            database: database.map(str::to_owned),
        };
        service.wait_ready();
        (service.approver, service.requester) = match database {
            Some(database) => {
                assert!(
                    !service.data_dir.join("requester.token").exists(),
                    "a service on PostgreSQL writes no token file: it serves the database's identities"
                );
                team::team(database)
            }
            None => (
                read_token(&service.data_dir, "approver.token"),
                read_token(&service.data_dir, "requester.token"),
            ),
        };
        service
    }

    /// Polls `/healthz` until the service answers (the ready signal of a separate process).
    fn wait_ready(&mut self) {
        let client = assent_client::blocking::Client::new(&self.url, "none").unwrap();
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if client
                .health(Instant::now() + Duration::from_secs(1))
                .is_ok()
            {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("assent serve exited early with {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("assent serve did not become healthy");
    }

    /// Stops the service as a logout or `systemctl stop` does (SIGTERM) and waits for it to
    /// exit; its exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success(), "SIGTERM sent to assent serve");
        self.child.wait().unwrap()
    }

    /// Kills the service outright (SIGKILL: a crash, no shutdown code runs) and waits.
    pub fn kill_hard(&mut self) -> std::process::ExitStatus {
        self.child.kill().unwrap();
        self.child.wait().unwrap()
    }

    /// An async approver client and a runtime to drive it.
    pub fn approver_client(&self) -> assent_client::Client {
        assent_client::Client::new(&self.url, &self.approver).unwrap()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The URL `assent serve` prints once it is bound (`assent: listening on http://…`); the rest
/// of its output is drained in the background so it never blocks on a full pipe.
fn listening_url(child: &mut Child) -> String {
    use std::io::BufRead;
    let stdout = child.stdout.take().expect("the service's stdout is piped");
    let (found, url) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if let Some(url) = line.strip_prefix("assent: listening on ") {
                let _ = found.send(url.trim().to_owned());
            }
        }
    });
    match url.recv_timeout(Duration::from_secs(60)) {
        Ok(url) => url,
        Err(_) => match child.try_wait().unwrap() {
            Some(status) => panic!("assent serve exited early with {status}"),
            None => panic!("assent serve printed no listening address in 60 s"),
        },
    }
}

fn read_token(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .trim()
        .to_owned()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A Claude Code hook payload with the documented common fields.
pub fn payload(
    event: &str,
    session: &str,
    tool_use_id: &str,
    tool: &str,
    input: Value,
    cwd: &Path,
) -> Value {
    let mut p = json!({
        "session_id": session,
        "transcript_path": format!("/home/dev/.claude/projects/demo/{session}.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if !tool.is_empty() {
        p["tool_name"] = json!(tool);
        p["tool_input"] = input;
        p["tool_use_id"] = json!(tool_use_id);
    }
    p
}

/// A git-looking work tree (a `.git` dir with a `HEAD`) for the gate to find.
pub fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    mark_repository(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    (tmp, root)
}

/// Makes `dir` (created if need be) the root of a git-looking repository: a `.git` directory
/// with a `HEAD` on an unborn branch, which is what the gate (as git) takes for one.
pub fn mark_repository(dir: &Path) {
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
}

/// Starts `assent <args>` with `payload` on stdin, not waiting for it.
/// A state directory of this test process's own (made once).
pub fn state_dir() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = std::env::temp_dir();
        remove_stale_state_dirs(&tmp);
        let dir = tmp.join(format!("{STATE_DIR_PREFIX}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

const STATE_DIR_PREFIX: &str = "assent-gate-test-";

/// A static is never dropped, so each test process's state directory outlives it: the next
/// test process removes those whose process is gone (a running one's stays).
fn remove_stale_state_dirs(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|name| name.strip_prefix(STATE_DIR_PREFIX))
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

pub fn spawn_with_stdin(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Child {
    spawn_program_with_stdin(Path::new(BIN), args, env, stdin)
}

/// As [`spawn_with_stdin`], running `program` (the fast gate, or a copy of a binary).
pub fn spawn_program_with_stdin(
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: &[u8],
) -> Child {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_remove("ASSENT_URL")
        .env_remove("ASSENT_TOKEN")
        .env_remove("ASSENT_CA_FILE")
        .env("XDG_DATA_HOME", "/nonexistent-assent-test")
        // The Codex gate's passes (PreToolUse → PermissionRequest) stay in this test process's
        // own directory: an earlier run's pass for the same session id cannot answer here.
        .env("XDG_STATE_HOME", state_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // The gate may stop reading early (an oversized payload): a broken pipe is expected then.
    std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    child
}

/// The finished gate: exit code, stdout (JSON when any) and stderr.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout))
    }

    /// `permissionDecision` of a PreToolUse answer.
    pub fn decision(&self) -> String {
        self.json()["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    pub fn reason(&self) -> String {
        self.json()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

pub fn finish(child: Child) -> Ran {
    let out: Output = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `assent gate claude-code <extra>` against `url`/`token` with `payload`.
pub fn gate(url: &str, token: &str, extra: &[&str], payload: &Value) -> Ran {
    finish(spawn_gate(url, token, extra, payload))
}

pub fn spawn_gate(url: &str, token: &str, extra: &[&str], payload: &Value) -> Child {
    let mut args = vec!["gate", "claude-code"];
    args.extend_from_slice(extra);
    spawn_with_stdin(
        &args,
        &[("ASSENT_URL", url), ("ASSENT_TOKEN", token)],
        payload.to_string().as_bytes(),
    )
}

/// A listener that accepts connections and never answers; kept alive with the value.
pub struct Hung {
    pub url: String,
    _listener: TcpListener,
    _held: std::sync::Arc<std::sync::Mutex<Vec<TcpStream>>>,
}

pub fn hung_service() -> Hung {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let held = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let accept = listener.try_clone().unwrap();
    let keep = held.clone();
    std::thread::spawn(move || {
        for stream in accept.incoming().flatten() {
            keep.lock().unwrap().push(stream);
        }
    });
    Hung {
        url,
        _listener: listener,
        _held: held,
    }
}

/// A server answering every request with `responses[i]` (the last one repeats).
pub fn canned_service(responses: Vec<Vec<u8>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let answer = responses
                .get(i)
                .or(responses.last())
                .cloned()
                .unwrap_or_default();
            std::thread::spawn(move || {
                read_request(&mut stream);
                let _ = stream.write_all(&answer);
            });
        }
    });
    url
}

fn read_request(stream: &mut TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    while let Ok(n) = stream.read(&mut chunk) {
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return;
            }
        }
    }
}

pub fn http_response(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Polls the approver's pending list until `n` prompts are open (the ready signal that a
/// gate has submitted); returns them. The limit is generous: a real agent CLI starting on a
/// loaded machine takes a while to make its first tool call.
pub fn wait_pending(service: &Service, n: usize) -> Vec<assent_protocol::Approval> {
    let rt = runtime();
    let client = service.approver_client();
    let until = Instant::now() + Duration::from_secs(90);
    loop {
        let pending = rt.block_on(client.pending()).unwrap();
        if pending.len() >= n {
            return pending;
        }
        assert!(
            Instant::now() < until,
            "expected {n} pending prompt(s), have {}",
            pending.len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn approve(
    service: &Service,
    approval_id: &str,
    scope: assent_core::ScopeKind,
) -> assent_protocol::DecisionResponse {
    let decision = assent_protocol::DecisionRequest::Approve {
        scope,
        expires_in_seconds: 600,
        max_uses: None,
        reason: Some("looks fine".into()),
        path_patterns: None,
    };
    runtime()
        .block_on(service.approver_client().decide(approval_id, &decision))
        .unwrap()
}

pub fn deny(
    service: &Service,
    approval_id: &str,
    reason: &str,
) -> assent_protocol::DecisionResponse {
    let decision = assent_protocol::DecisionRequest::Deny {
        reason: reason.into(),
    };
    runtime()
        .block_on(service.approver_client().decide(approval_id, &decision))
        .unwrap()
}
