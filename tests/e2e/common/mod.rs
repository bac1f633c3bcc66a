//! Shared parts of the end-to-end suites: a private desk (temp data/config dirs, a free port
//! for the embedded service), a requester client that submits like a gate, and a test
//! notification server on the session bus that records every call.
#![allow(dead_code, reason = "each suite uses a different part")]

pub mod browser;
pub mod driver;
pub mod notification_server;
pub mod scripted_reviewer;
pub mod status_notifier;
pub mod ui;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use assent_client::Client;
use assent_core::{Action, ActionContext, ActionKind, ActionRequest, RequestedBy, Role, ALL_ROLES};
use assent_protocol::{SubmitResponse, REQUESTER_TOKEN_FILE};

/// The app binary under test: `ASSENT_DESKTOP_BIN`, else the one cargo built for this test.
pub fn app_binary() -> PathBuf {
    std::env::var_os("ASSENT_DESKTOP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_assent-desktop")))
}

/// A private desk: its own data dir (tokens, SQLite), config dir and service port.
pub struct Desk {
    pub dir: tempfile::TempDir,
    pub port: u16,
    /// A policy file for the embedded service (`ASSENT_POLICY`), when the test needs one.
    pub policy: Option<PathBuf>,
    /// A service to connect to instead of embedding one: its URL and the desk's token
    /// (`ASSENT_URL` + `ASSENT_TOKEN`).
    pub remote: Option<(String, String)>,
}

/// A free port for a desk to listen on, picked below the kernel's ephemeral range
/// (32768–60999). The desk binds it only once the app starts, after WebKitWebDriver has picked
/// its inspector's port for the window — by binding port 0, from the ephemeral range. A port
/// picked the same way here was seen to be handed to both (the window's inspector then fails
/// to bind and the session never starts).
fn desk_port() -> u16 {
    // A different start per test process and per call, so suites running side by side
    // rarely probe the same ports.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let offset =
        std::process::id() * 7919 + NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) * 101;
    (0..12_000)
        .map(|i| 20_000 + ((offset + i) % 12_000) as u16)
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free port in 20000-31999")
}

impl Desk {
    pub fn new() -> Desk {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = desk_port();
        std::fs::create_dir_all(dir.path().join("data")).expect("data dir");
        std::fs::create_dir_all(dir.path().join(".config")).expect("config dir");
        Desk {
            dir,
            port,
            policy: None,
            remote: None,
        }
    }

    /// A desk that signs in to `url` with `token` (a person's) and embeds nothing.
    pub fn signed_in(url: &str, token: &str) -> Desk {
        let mut desk = Desk::new();
        desk.remote = Some((url.to_owned(), token.to_owned()));
        desk
    }

    /// A desk whose embedded service runs `policy_toml` instead of the default policy.
    pub fn with_policy(policy_toml: &str) -> Desk {
        let mut desk = Desk::new();
        let path = desk.dir.path().join("policy.toml");
        std::fs::write(&path, policy_toml).expect("write the policy");
        desk.policy = Some(path);
        desk
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data").join("assent")
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `$XDG_CONFIG_HOME`, which is also `$HOME/.config` (autostart writes there).
    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join(".config")
    }

    /// The environment the app runs with: a private `$HOME`, embedded service on the private
    /// port.
    pub fn env(&self) -> Vec<(String, String)> {
        let root = self.dir.path();
        vec![
            ("HOME".into(), root.display().to_string()),
            (
                "XDG_DATA_HOME".into(),
                root.join("data").display().to_string(),
            ),
            (
                "XDG_CONFIG_HOME".into(),
                self.config_dir().display().to_string(),
            ),
            (
                "ASSENT_DESKTOP_SETTINGS".into(),
                self.config_dir().join("desktop.json").display().to_string(),
            ),
            (
                "ASSENT_DESKTOP_LISTEN".into(),
                format!("127.0.0.1:{}", self.port),
            ),
            ("WEBKIT_DISABLE_DMABUF_RENDERER".into(), "1".into()),
            ("ASSENT_LOG".into(), "info".into()),
            (
                "ASSENT_POLICY".into(),
                self.policy
                    .as_ref()
                    .map(|path| path.display().to_string())
                    .unwrap_or_default(),
            ),
        ]
        .into_iter()
        .chain(self.remote.iter().flat_map(|(url, token)| {
            [
                ("ASSENT_URL".to_owned(), url.clone()),
                ("ASSENT_TOKEN".to_owned(), token.clone()),
            ]
        }))
        .filter(|(_, value)| !value.is_empty())
        .collect()
    }

    /// Applies [`Desk::env`] to a command (a remote service only where [`Desk::remote`] says).
    pub fn configure(&self, command: &mut Command) {
        command.env_remove("ASSENT_URL").env_remove("ASSENT_TOKEN");
        for (key, value) in self.env() {
            command.env(key, value);
        }
    }

    /// Waits until the embedded service wrote its requester token and answers; the agent's
    /// client and a second person's, `reviewer` (every role), to check and decide with. The
    /// desk's own credential (the owner's) lives only in its memory.
    pub async fn wait_ready(&self, timeout: Duration) -> (Client, Client) {
        let until = Instant::now() + timeout;
        loop {
            if let Some(requester) = read(&self.data_dir().join(REQUESTER_TOKEN_FILE)) {
                let requester = Client::new(&self.url(), &requester).expect("requester client");
                if requester.health().await.is_ok() {
                    let token = add_person(&self.data_dir(), "reviewer", &ALL_ROLES).await;
                    let reviewer = Client::new(&self.url(), &token).expect("reviewer client");
                    return (requester, reviewer);
                }
            }
            assert!(
                Instant::now() < until,
                "the app's embedded service must start within {timeout:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Adds a person to the service whose data dir is `data_dir` (beside the running service, as
/// `assent people add` does); their token.
pub async fn add_person(data_dir: &Path, name: &str, roles: &[Role]) -> String {
    let directory = assent_server::Directory::open(data_dir)
        .await
        .expect("open the identities");
    let token = directory
        .add_person(name, roles)
        .await
        .unwrap_or_else(|err| panic!("add {name}: {err}"));
    directory.close().await;
    token
}

/// Changes a person's roles in the service whose data dir is `data_dir`
/// (`assent people roles NAME --add … --remove …`).
pub async fn change_roles(data_dir: &Path, name: &str, add: &[Role], remove: &[Role]) {
    let directory = assent_server::Directory::open(data_dir)
        .await
        .expect("open the identities");
    directory
        .roles(name, add, remove)
        .await
        .unwrap_or_else(|err| panic!("change {name}'s roles: {err}"));
    directory.close().await;
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// A shell action like the Claude Code gate submits.
pub fn shell_request(run_id: &str, command: &str, cwd: &str) -> ActionRequest {
    ActionRequest {
        run_id: run_id.to_owned(),
        task_id: format!("{run_id}-task"),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Shell,
            command: Some(command.to_owned()),
            argv: None,
            cwd: cwd.to_owned(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: None,
            tool: None,
        },
        context: ActionContext {
            repo: Some("shop".to_owned()),
            ..ActionContext::default()
        },
        reason: "run the test suite before committing".to_owned(),
    }
}

/// A command the default policy asks a person about.
pub const ASKED_COMMAND: &str = "mvn -q test";

/// Submits and expects a pending prompt; its approval id.
pub async fn submit_pending(requester: &Client, request: &ActionRequest) -> String {
    let answer: SubmitResponse = requester.submit(request).await.expect("submit");
    match answer.approval_id {
        Some(id) => id,
        None => panic!("{} must open a prompt, got {answer:?}", request.run_id),
    }
}

/// Polls `check` until it is `Some` (end-to-end waits on other processes; no fixed sleeps).
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let until = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            Instant::now() < until,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Takes a screenshot of the whole (virtual) screen into `docs/screenshots/` when
/// `ASSENT_SCREENSHOTS` names that directory.
pub fn screenshot(name: &str) {
    let Some(dir) = std::env::var_os("ASSENT_SCREENSHOTS") else {
        return;
    };
    let path = PathBuf::from(dir).join(name);
    let status = Command::new("import")
        .args(["-window", "root"])
        .arg(&path)
        .status()
        .expect("imagemagick's import");
    assert!(
        status.success(),
        "screenshot {} must be written",
        path.display()
    );
}

/// A service the test runs itself (the app connects to it as a remote one), which the test can
/// stop and start again on the same port and data.
pub struct TestService {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub tokens: assent_server::Tokens,
    policy: assent_core::Policy,
    clock: Option<std::sync::Arc<dyn assent_server::Clock>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
}

impl TestService {
    pub async fn start() -> TestService {
        TestService::with_policy(assent_core::Policy::default()).await
    }

    /// A service running `policy`.
    pub async fn with_policy(policy: assent_core::Policy) -> TestService {
        TestService::with(policy, None).await
    }

    /// A service whose time is `clock`'s (the people's directory, beside it, keeps the
    /// system's: an invite made now is judged by the service's time).
    pub async fn with_clock(clock: std::sync::Arc<dyn assent_server::Clock>) -> TestService {
        TestService::with(assent_core::Policy::default(), Some(clock)).await
    }

    async fn with(
        policy: assent_core::Policy,
        clock: Option<std::sync::Arc<dyn assent_server::Clock>>,
    ) -> TestService {
        let dir = tempfile::tempdir().expect("temp dir");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("address").port();
        let mut service = TestService {
            dir,
            port,
            tokens: assent_server::Tokens {
                requester: String::new(),
                approver: String::new(),
            },
            policy,
            clock,
            stop: None,
            served: None,
        };
        service.serve(listener).await;
        service
    }

    async fn serve(&mut self, listener: tokio::net::TcpListener) {
        let mut config = assent_server::Config::new(self.dir.path(), self.policy.clone());
        if let Some(clock) = &self.clock {
            config.clock = clock.clone();
        }
        let app = assent_server::App::open(config)
            .await
            .expect("open the service");
        self.tokens = app.tokens().expect("SQLite keeps token files").clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        self.stop = Some(stop);
        self.served = Some(tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            app.serve(listener, shutdown).await.expect("serve");
        }));
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops it (open event streams end) and waits until it is down.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.expect("the service stops cleanly");
        }
    }

    /// Serves again on the same port and data.
    pub async fn restart(&mut self) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .expect("the same port again");
        self.serve(listener).await;
    }

    pub fn requester(&self) -> Client {
        Client::new(&self.url(), &self.tokens.requester).expect("requester client")
    }

    pub fn approver(&self) -> Client {
        Client::new(&self.url(), &self.tokens.approver).expect("approver client")
    }

    /// Adds a person with `roles`; their token.
    pub async fn person(&self, name: &str, roles: &[Role]) -> String {
        add_person(self.dir.path(), name, roles).await
    }

    /// A client presenting `token`.
    pub fn client(&self, token: &str) -> Client {
        Client::new(&self.url(), token).expect("client")
    }
}

/// The X server's window tree (`xwininfo -root -tree`).
pub fn x_tree() -> String {
    let output = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .output()
        .expect("xwininfo (x11-utils)");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether the X server shows a window titled exactly `title`.
pub fn x_window_titled(title: &str) -> bool {
    let quoted = format!("\"{title}\"");
    x_tree().lines().any(|line| {
        line.split(':')
            .next()
            .is_some_and(|head| head.trim_end().ends_with(&quoted))
    })
}

/// The direct children of `pid` (over all its threads).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|id| id.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// Whether `pid` still runs (a zombie or a vanished process does not).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
        })
        .unwrap_or(false)
}

/// The name of process `pid` (its `comm`, at most 15 bytes: `WebKitWebProces`).
pub fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

/// The window process (`assent-window`) the app `app` started, once it runs.
pub async fn window_process(app: u32, timeout: Duration) -> u32 {
    eventually("the window process", timeout, || async {
        children(app)
            .into_iter()
            .find(|pid| comm(*pid) == "assent-window" && running(*pid))
    })
    .await
}

/// The status of approval `approval_id`, as the service has it now.
pub async fn status_of(approver: &Client, approval_id: &str) -> assent_core::ApprovalStatus {
    approver
        .approval(approval_id, None)
        .await
        .expect("the approval exists")
        .status
}

/// The person's browser as the app reaches it, `xdg-open` on `PATH`: here a program that
/// writes down each address it is asked to open (no browser runs for the tray's suites).
pub struct Opener {
    bin: PathBuf,
    opened: PathBuf,
}

impl Opener {
    /// A recording `xdg-open` in `dir` (a test's own temp dir).
    pub fn in_dir(dir: &Path) -> Opener {
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).expect("the opener's dir");
        let opened = dir.join("opened.txt");
        let program = bin.join("xdg-open");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
                opened.display()
            ),
        )
        .expect("write xdg-open");
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("make xdg-open runnable");
        Opener { bin, opened }
    }

    /// `PATH` for the app: this `xdg-open` first, then this test's own `PATH`.
    pub fn path(&self) -> String {
        let inherited = std::env::var("PATH").unwrap_or_default();
        format!("{}:{inherited}", self.bin.display())
    }

    /// The first address the app asked to open, once it has.
    pub async fn first_opened(&self) -> String {
        eventually(
            "the browser to be asked to open a page",
            Duration::from_secs(30),
            || async {
                let text = std::fs::read_to_string(&self.opened).ok()?;
                text.lines().next().map(str::to_owned)
            },
        )
        .await
    }
}

/// The `p` quantile of `sorted` (nearest rank, half rounded up: the upper middle of an even
/// count for the median), for the benches.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
