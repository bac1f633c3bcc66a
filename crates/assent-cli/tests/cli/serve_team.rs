//! `assent serve` for a team, through the real binary: beyond loopback only with
//! `--public-url`, HTTPS with `--tls-cert/--tls-key` (unusable files named), and the gate and
//! `assent request` reaching it over TLS when `ASSENT_CA_FILE` names its CA — failing closed
//! when it does not.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::gate_support::*;
use serde_json::json;

fn serve(args: &[&str], data_dir: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("serve")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs `assent serve …` that must refuse to start.
fn refused(args: &[&str]) -> (i32, String, PathBuf, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let out = serve(args, &data_dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        data_dir,
        tmp,
    )
}

/// A self-signed certificate for localhost, 127.0.0.1 and the team's name, as PEM files.
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let made = rcgen::generate_simple_self_signed(vec![
        "team.assent.test".to_owned(),
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
    ])
    .unwrap();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    (cert, key)
}

#[test]
fn a_listener_beyond_loopback_needs_a_public_url() {
    let port = free_port().to_string();
    for listen in [format!("0.0.0.0:{port}"), format!("[::]:{port}")] {
        let (code, stderr, data_dir, _tmp) = refused(&["--listen", &listen]);
        assert_eq!(
            code, 2,
            "listening on {listen} without --public-url is a usage error: {stderr}"
        );
        assert!(
            stderr.contains("--public-url") && stderr.contains("not a loopback address"),
            "the error says why and what to pass: {stderr}"
        );
        assert!(
            !data_dir.exists(),
            "refused before anything is created (no database, no tokens)"
        );
    }
    let (code, stderr, _, _tmp) = refused(&[
        "--listen",
        &format!("0.0.0.0:{port}"),
        "--public-url",
        "https://team.assent.test/assent",
    ]);
    assert_eq!(code, 2, "a public URL with a path is refused: {stderr}");
    assert!(
        stderr.contains("--public-url") && stderr.contains("path"),
        "the error names the flag and what is wrong with it: {stderr}"
    );
    let (code, stderr, _, _tmp) = refused(&["--tls-cert", "/nonexistent/cert.pem"]);
    assert_eq!(
        code, 2,
        "--tls-cert without --tls-key is a usage error: {stderr}"
    );
    assert!(
        stderr.contains("--tls-key"),
        "the missing flag is named: {stderr}"
    );
}

#[test]
fn unusable_tls_files_are_named_and_nothing_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(tmp.path());
    let garbage = tmp.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let missing = tmp.path().join("missing-key.pem");
    for (cert, key, named) in [
        (&garbage, &key, &garbage),
        (&cert, &missing, &missing),
        (&cert, &garbage, &garbage),
    ] {
        let (code, stderr, data_dir, _tmp) = refused(&[
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ]);
        assert_eq!(
            code, 1,
            "an unusable certificate or key stops the start: {stderr}"
        );
        assert!(
            stderr.contains(named.to_str().unwrap()),
            "the error names the file at fault ({}): {stderr}",
            named.display()
        );
        assert!(!data_dir.exists(), "checked before the database is opened");
    }
    let (code, stderr, _, _tmp) = refused(&[
        "--listen",
        "127.0.0.1:0",
        "--public-url",
        "http://team.assent.test",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    assert_eq!(
        code, 2,
        "an http:// public URL for an HTTPS service is a usage error: {stderr}"
    );
    assert!(
        stderr.contains("https://"),
        "the error says to use https://: {stderr}"
    );
}

/// `assent serve` on all interfaces with TLS and a public URL; its stdout line naming the
/// client URL is the ready signal (printed once the port is bound and the database open).
struct TeamService {
    child: Child,
    port: u16,
    ca_file: PathBuf,
    requester: String,
    printed_url: String,
    _tmp: tempfile::TempDir,
}

impl Drop for TeamService {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_team_service() -> TeamService {
    let tmp = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(tmp.path());
    let data_dir = tmp.path().join("data");
    let port = free_port();
    let public = format!("https://team.assent.test:{port}");
    let mut child = serve(
        &[
            "--listen",
            &format!("0.0.0.0:{port}"),
            "--public-url",
            &public,
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
        &data_dir,
    )
    .spawn()
    .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed_url = String::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("assent: agents use ASSENT_URL=") {
            printed_url = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
            break;
        }
    }
    assert!(
        !printed_url.is_empty(),
        "assent serve printed where agents reach it"
    );
    let requester = std::fs::read_to_string(data_dir.join("requester.token"))
        .unwrap()
        .trim()
        .to_owned();
    TeamService {
        child,
        port,
        ca_file: cert,
        requester,
        printed_url,
        _tmp: tmp,
    }
}

fn run_gate(url: &str, token: &str, ca_file: Option<&Path>, tool_use_id: &str) -> Ran {
    let (_repo_tmp, root) = repo();
    let hook = payload(
        "PreToolUse",
        "sess-team",
        tool_use_id,
        "Bash",
        json!({"command": "git status", "description": "team"}),
        &root,
    );
    let mut env = vec![("ASSENT_URL", url), ("ASSENT_TOKEN", token)];
    let ca = ca_file.map(|p| p.to_str().unwrap().to_owned());
    if let Some(ca) = &ca {
        env.push(("ASSENT_CA_FILE", ca.as_str()));
    }
    finish(spawn_with_stdin(
        &["gate", "claude-code", "--wait", "5"],
        &env,
        hook.to_string().as_bytes(),
    ))
}

#[test]
fn the_gate_and_request_reach_a_tls_team_service_when_they_trust_its_ca() {
    let svc = start_team_service();
    assert_eq!(
        svc.printed_url,
        format!("https://team.assent.test:{}", svc.port),
        "serve tells agents the public URL, not the address it listens on"
    );
    let url = format!("https://localhost:{}", svc.port);

    let ran = run_gate(&url, &svc.requester, Some(&svc.ca_file), "toolu_team1");
    assert_eq!(ran.code, 0, "the gate answers with JSON: {}", ran.stderr);
    assert_eq!(
        ran.decision(),
        "allow",
        "with ASSENT_CA_FILE the gate reaches the TLS service and gets its auto decision: {}",
        ran.stdout
    );

    let ran = run_gate(&url, &svc.requester, None, "toolu_team2");
    assert_eq!(
        ran.code, 0,
        "a JSON answer goes with exit 0: {}",
        ran.stderr
    );
    assert_eq!(
        ran.decision(),
        "deny",
        "a service whose certificate nobody here trusts is never an allow"
    );
    assert!(
        ran.reason().contains("certificate") && ran.reason().contains("ASSENT_CA_FILE"),
        "the reason says the certificate is not trusted and how to trust it: {}",
        ran.reason()
    );

    let tmp = tempfile::tempdir().unwrap();
    let request = |ca: Option<&Path>| {
        let mut cmd = Command::new(BIN);
        cmd.args(["request", "--run", "team-run", "--", "git", "status"])
            .current_dir(tmp.path())
            .env("ASSENT_URL", &url)
            .env("ASSENT_TOKEN", &svc.requester)
            .env_remove("ASSENT_CA_FILE")
            .stdin(Stdio::null());
        if let Some(ca) = ca {
            cmd.env("ASSENT_CA_FILE", ca);
        }
        cmd.output().unwrap()
    };
    let out = request(Some(&svc.ca_file));
    assert_eq!(
        out.status.code(),
        Some(0),
        "assent request is allowed over TLS with the CA: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = request(None);
    assert_eq!(
        out.status.code(),
        Some(13),
        "without the CA assent request reports the service unavailable: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
