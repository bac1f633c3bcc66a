//! `assent sandbox -- COMMAND`: the real binary and the real bubblewrap, with a real `assent
//! serve` keeping its tokens, database and audit key in the default data dir of a private home.
//! The command cannot read them (nor a secret store, nor change the hook settings) and can
//! still ask the service with the requester token it is given. bubblewrap comes from
//! `scripts/deps.sh`; where it is missing or cannot make a sandbox the test fails saying so.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_support::*;

/// Fails the test, with the reason, when this machine cannot make a bubblewrap sandbox.
pub fn require_bwrap() {
    let out = Command::new("bwrap")
        .args(["--dev-bind", "/", "/", "true"])
        .output();
    match out {
        Err(err) => panic!(
            "bubblewrap (bwrap) cannot be run ({err}): `scripts/deps.sh` installs it \
             (apt-get install bubblewrap); the sandbox tests need it"
        ),
        Ok(out) => assert!(
            out.status.success(),
            "bwrap is installed but cannot make a sandbox here (user namespaces unavailable?): {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// `assent <args>` as the user whose home is `home`, with no XDG or agent variables.
fn assent(home: &Path, url: &str, path: &str, args: &[&str]) -> Ran {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("PATH", path)
        .env("ASSENT_URL", url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "ASSENT_TOKEN",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "CODEX_HOME",
        "CLAUDE_CONFIG_DIR",
        "ASSENT_POLICY",
    ] {
        cmd.env_remove(var);
    }
    finish(cmd.spawn().unwrap())
}

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn sandboxed(home: &Path, service: &Service, script: &str) -> Ran {
    assent(
        home,
        &service.url,
        PATH,
        &["sandbox", "--", "sh", "-c", script],
    )
}

#[test]
fn the_owners_token_the_database_and_the_audit_key_are_out_of_reach() {
    require_bwrap();
    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let data = home.path().join(".local/share/assent");
    for file in ["approver.token", "assent.db", "audit-key"] {
        assert!(
            data.join(file).exists(),
            "the service keeps {file} in {data:?}"
        );
        let ran = sandboxed(
            home.path(),
            &service,
            &format!("cat {}", data.join(file).display()),
        );
        assert_ne!(ran.code, 0, "reading {file} fails in the sandbox: {ran:?}");
        assert!(
            !ran.stdout.contains(&service.approver),
            "the owner's token never reaches the sandboxed command: {ran:?}"
        );
    }
    let ran = sandboxed(home.path(), &service, "ls -A ~/.local/share/assent | wc -l");
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "0"),
        "the data dir is an empty directory inside: {ran:?}"
    );
    let ran = sandboxed(
        home.path(),
        &service,
        "echo x > ~/.local/share/assent/policy.toml",
    );
    assert_ne!(
        ran.code, 0,
        "nothing can be planted in the data dir: {ran:?}"
    );
    assert!(
        !data.join("policy.toml").exists(),
        "no policy file appeared in the real data dir"
    );
}

#[test]
fn an_ordinary_command_runs_and_asks_the_service_with_the_requester_token() {
    require_bwrap();
    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let ran = sandboxed(home.path(), &service, "echo ok");
    assert_eq!((ran.code, ran.stdout.as_str()), (0, "ok"), "{ran:?}");

    let ran = sandboxed(home.path(), &service, "exit 7");
    assert_eq!(
        ran.code, 7,
        "the command's exit code passes through: {ran:?}"
    );

    let ran = sandboxed(home.path(), &service, "env");
    assert!(
        ran.stdout
            .contains(&format!("ASSENT_TOKEN={}", service.requester)),
        "the requester token is in the sandbox's environment: {ran:?}"
    );
    assert!(
        !ran.stdout.contains(&service.approver),
        "the owner's token is not: {ran:?}"
    );
    // The data dir is hidden inside, so `assent request` can only use the token it was given.
    let ran = sandboxed(
        home.path(),
        &service,
        &format!("{BIN} request --json -- git status"),
    );
    assert_eq!(
        ran.code, 0,
        "the sandboxed command reached the service over loopback and was answered: {ran:?}"
    );
    assert!(
        ran.stdout.contains("\"allowed\""),
        "the service allowed the harmless request: {ran:?}"
    );
}

#[test]
fn assents_dirs_are_covered_before_the_service_first_runs() {
    require_bwrap();
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join(".local/share/assent");
    assert!(!data.exists(), "no service has run in this home yet");
    let ran = assent(
        home.path(),
        "http://127.0.0.1:9",
        PATH,
        &[
            "sandbox",
            "--",
            "sh",
            "-c",
            "mkdir -p ~/.local/share/assent && echo planted > ~/.local/share/assent/policy.toml",
        ],
    );
    assert_ne!(
        ran.code, 0,
        "the data dir is covered even before it was first made, so nothing is planted for \
         the service to find: {ran:?}"
    );
    assert!(
        !data.join("policy.toml").exists(),
        "no policy file in the real data dir"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&data).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o700,
        "the sandbox made the data dir as the service does"
    );
}

#[test]
fn the_owners_token_is_never_handed_in() {
    require_bwrap();
    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let ran = assent(
        home.path(),
        &service.url,
        PATH,
        &[
            "sandbox",
            "--token",
            &service.approver,
            "--",
            "sh",
            "-c",
            "echo \"$ASSENT_TOKEN\"",
        ],
    );
    assert_eq!(
        ran.code, 2,
        "the owner's token given as the sandbox's token is refused as a usage error: {ran:?}"
    );
    assert!(
        !ran.stdout.contains(&service.approver),
        "the command did not run with the owner's token: {ran:?}"
    );
    assert!(
        ran.stderr.contains("owner's"),
        "the error says why: {ran:?}"
    );
}

#[test]
fn secret_stores_are_hidden_and_hook_settings_read_only() {
    require_bwrap();
    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let ssh = home.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), "PRIVATE-KEY-4471\n").unwrap();
    std::fs::write(
        home.path().join(".netrc"),
        "machine x password NETRC-9921\n",
    )
    .unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), "{\"hooks\":{}}\n").unwrap();

    let ran = sandboxed(home.path(), &service, "cat ~/.ssh/id_ed25519 ~/.netrc");
    assert!(
        !ran.stdout.contains("PRIVATE-KEY-4471") && !ran.stdout.contains("NETRC-9921"),
        "secret stores read as empty: {ran:?}"
    );
    let ran = sandboxed(home.path(), &service, "cat ~/.claude/settings.json");
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "{\"hooks\":{}}"),
        "the agent still reads its hooks (hidden hooks would turn the gate off): {ran:?}"
    );
    let ran = sandboxed(home.path(), &service, "echo '{}' > ~/.claude/settings.json");
    assert_ne!(ran.code, 0, "the hook settings cannot be written: {ran:?}");
    let ran = sandboxed(home.path(), &service, "mv ~/.claude/settings.json /tmp/x");
    assert_ne!(ran.code, 0, "nor moved away: {ran:?}");
    let ran = sandboxed(
        home.path(),
        &service,
        "mv ~/.claude ~/.claude-old && mkdir ~/.claude && echo '{}' > ~/.claude/settings.json",
    );
    assert_ne!(
        ran.code, 0,
        "the directory holding them cannot be swapped for another: {ran:?}"
    );
    assert!(claude.is_dir(), "~/.claude is where it was");
    assert_eq!(
        std::fs::read_to_string(claude.join("settings.json")).unwrap(),
        "{\"hooks\":{}}\n",
        "the hook settings are unchanged"
    );
}

#[test]
fn without_bubblewrap_the_error_is_clear_and_the_exit_code_its_own() {
    let home = tempfile::tempdir().unwrap();
    let ran = assent(
        home.path(),
        "http://127.0.0.1:9",
        "/nonexistent",
        &["sandbox", "--", "/bin/true"],
    );
    assert_eq!(ran.code, 69, "a missing bwrap exits 69: {ran:?}");
    assert!(
        ran.stderr.contains("bubblewrap (bwrap) is not installed"),
        "the error names what is missing and how to install it: {ran:?}"
    );
    let ran = assent(
        home.path(),
        "http://127.0.0.1:9",
        PATH,
        &["sandbox", "--", "no-such-program-3321"],
    );
    assert_eq!(
        ran.code, 127,
        "a command that is not there exits 127: {ran:?}"
    );
}
