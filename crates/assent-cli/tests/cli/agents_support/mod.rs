//! Shared by the real-agent tests: the pinned agent CLIs from `tests/agents` (npm ci), a
//! private home with Assent installed into it by `assent install`, and the scripted model
//! ([`model::ModelServer`]) the agent talks to instead of a provider.

pub mod chat;
pub mod gemini;
pub mod model;
pub mod responses;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use assent_core::AuditDecision;

use crate::gate_support::{runtime, Service, BIN};
use model::{Block, ModelServer};

/// A command the default policy asks a person about.
pub const PUSH: &str = "git push origin main";

/// One real agent CLI, as the stories every agent tells drive it (`agents_stories.rs`).
pub trait AgentCli: Sync {
    /// A service, a home with Assent installed for this agent by `assent install`, and the
    /// scripted model playing `script`.
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup;
    /// The agent's run in the project (`claude -p go`, `codex exec …`), in the background.
    fn start(&self, s: &Setup) -> JoinHandle<AgentRun>;
    /// The model's call of the agent's shell tool for `command`.
    fn shell(&self, command: &str) -> Block;
    /// The call of a push the policy asks a person about (Codex's asks for escalation too, so
    /// its PermissionRequest hook follows the PreToolUse one).
    fn push(&self) -> Block {
        self.shell(PUSH)
    }
    /// Whether a tool result is the agent's own words for a call its hook blocked (Assent's
    /// reason is checked apart).
    fn says_blocked(&self, result: &str) -> bool;
}

/// A service, a home with Assent installed for one agent, and the scripted model.
pub struct Setup {
    pub service: Service,
    pub home: Home,
    pub model: ModelServer,
}

impl Setup {
    /// The one tool result the agent sent back.
    pub fn only_result(&self) -> String {
        let results = self.model.tool_results();
        assert_eq!(
            results.len(),
            1,
            "one scripted tool call, one result sent back: {results:?}\n{}",
            self.model.log()
        );
        results[0].clone()
    }

    pub fn audit(&self) -> Vec<assent_core::ApprovalAuditEvent> {
        runtime()
            .block_on(self.service.approver_client().audit(None, None))
            .unwrap()
    }

    /// How many prompts a person decided: one per approval, however many calls it answered.
    pub fn prompts_decided(&self) -> usize {
        let audit = self.audit();
        let mut decided: Vec<&str> = audit
            .iter()
            .filter(|e| matches!(e.decision, AuditDecision::Approved | AuditDecision::Denied))
            .filter_map(|e| e.approval_id.as_deref())
            .collect();
        decided.sort_unstable();
        decided.dedup();
        decided.len()
    }
}

/// One tool call, then the final text.
pub fn one_call(call: Block) -> Vec<Vec<Block>> {
    vec![vec![call], vec![Block::Text("finished".into())]]
}

/// Where the pinned agent CLIs are installed (`npm ci` in `tests/agents`).
pub fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents")
}

/// The pinned agent binary `name` (`claude`, `codex`), or a failure saying how to install it:
/// a missing agent is a failed test, never a skipped one.
pub fn agent_bin(name: &str, version: &str) -> PathBuf {
    let bin = agents_dir().join("node_modules/.bin").join(name);
    assert!(
        bin.exists(),
        "the real {name} CLI is not installed at {}: run `bash scripts/deps.d/40-agents.sh` \
         (npm ci in tests/agents)",
        bin.display()
    );
    let out = Command::new(&bin).arg("--version").output().unwrap();
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        printed.contains(version),
        "the tests are written against {name} {version}, found {printed:?}: run \
         `bash scripts/deps.d/40-agents.sh` (npm ci in tests/agents)"
    );
    bin
}

/// A private home with a git work tree and an `assent` the hooks name (`home/bin/assent`, a
/// link to the binary under test, so a test can remove it).
pub struct Home {
    pub tmp: tempfile::TempDir,
    pub project: PathBuf,
}

impl Home {
    pub fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .status()
            .unwrap();
        assert!(git.success(), "git init for the agent's work tree");
        std::fs::create_dir_all(tmp.path().join("bin")).unwrap();
        std::os::unix::fs::symlink(BIN, tmp.path().join("bin/assent")).unwrap();
        Home { tmp, project }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// The installed `assent` the hooks run.
    pub fn assent(&self) -> PathBuf {
        self.tmp.path().join("bin/assent")
    }

    /// Puts the agent binary `bin` on this home's `PATH` (as `name`), as an installed agent is.
    pub fn put_on_path(&self, bin: &Path, name: &str) {
        std::os::unix::fs::symlink(bin, self.path().join("bin").join(name)).unwrap();
    }

    /// `assent install <agent> --bin <home>/bin/assent --wait <wait>` as this home's user;
    /// what it printed (stdout, then stderr).
    pub fn install(&self, agent: &str, wait: &str) -> String {
        let out = Command::new(BIN)
            .args(["install", agent, "--wait", wait, "--bin"])
            .arg(self.assent())
            .env("HOME", self.path())
            .env("CODEX_HOME", self.path().join(".codex"))
            .env("PATH", self.path().join("bin"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(&self.project)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "assent install {agent}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// A `curl` on the agents' `PATH` printing `script`: had a `curl … | sh` run, `script` ran.
    pub fn curl_piping(&self, script: &str) {
        let curl = self.path().join("bin/curl");
        std::fs::write(&curl, format!("#!/bin/sh\necho '{script}'\n")).unwrap();
        std::fs::set_permissions(&curl, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }

    /// A bare remote `origin` (returned) and a commit on `main` in the project, so
    /// `git push origin main` can succeed.
    pub fn with_remote(&self) -> PathBuf {
        let remote = self.path().join("origin.git");
        self.git(
            &["init", "-q", "--bare"],
            &remote.to_string_lossy(),
            self.path(),
        );
        let commit = [
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.org",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
        ];
        self.git(&["checkout", "-q", "-b"], "main", &self.project);
        self.git(&commit, "first", &self.project);
        self.git(
            &["remote", "add", "origin"],
            &remote.to_string_lossy(),
            &self.project,
        );
        remote
    }

    fn git(&self, args: &[&str], last: &str, dir: &Path) {
        let out = Command::new("git")
            .args(args)
            .arg(last)
            .current_dir(dir)
            .env("HOME", self.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?} {last}: {out:?}");
    }

    /// The environment every agent run gets: this home, the service, no outside config.
    pub fn command(&self, bin: &Path, service: &Service) -> Command {
        let mut cmd = Command::new(bin);
        cmd.current_dir(&self.project)
            .env_clear()
            .env("HOME", self.path())
            .env(
                "PATH",
                format!(
                    "{}:/usr/local/bin:/usr/bin:/bin",
                    self.path().join("bin").display()
                ),
            )
            .env("LANG", "C.UTF-8")
            .env("ASSENT_URL", &service.url)
            .env("ASSENT_TOKEN", &service.requester)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }
}

/// What an agent run left: exit code, output, and how long it took.
#[derive(Debug)]
pub struct AgentRun {
    pub code: i32,
    #[expect(
        dead_code,
        reason = "read only through Debug, in the tests' failure messages"
    )]
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

/// Runs `cmd` to the end, failing the test past `limit` (the agent is killed then).
pub fn run_agent(mut cmd: Command, limit: Duration) -> AgentRun {
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the agent ran past {limit:?}; stderr: {}",
                err.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    AgentRun {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        took: started.elapsed(),
    }
}

/// Whether `git push origin main` reached the bare `remote`.
pub fn remote_has_main(remote: &Path) -> bool {
    Command::new("git")
        .args(["rev-parse", "--verify", "-q", "refs/heads/main"])
        .current_dir(remote)
        .output()
        .unwrap()
        .status
        .success()
}

/// Polls until `n` gates wait on the first prompt (equal calls joined it) or 30 s pass.
pub fn wait_waiting(service: &Service, n: u32) -> Vec<assent_protocol::Approval> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let pending = crate::gate_support::wait_pending(service, 1);
        if pending[0].agents_waiting >= n || Instant::now() > until {
            return pending;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether no prompt is open.
pub fn none_pending(service: &Service) -> bool {
    crate::gate_support::runtime()
        .block_on(service.approver_client().pending())
        .unwrap()
        .is_empty()
}
