//! A full disk says so: a real `assent serve` whose data dir is a small tmpfs (bubblewrap's
//! `--size … --tmpfs`, so no mount privilege is needed), filled to the last byte. A submit then
//! answers 503 "the service's disk is full" (not a bare 500 `internal`), `assent request`
//! prints it, and a gate's deny reason names it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::gate_support::*;
use crate::sandbox_cli::require_bwrap;
use assent_client::ClientError;
use serde_json::json;

/// `assent serve` in its own mount namespace, its data dir a tmpfs of `size` bytes.
struct SmallDisk {
    child: Child,
    _dir: tempfile::TempDir,
    data: PathBuf,
    url: String,
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SmallDisk {
    fn start(size: u64) -> SmallDisk {
        require_bwrap();
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let mut child = Command::new("bwrap")
            .args(["--dev-bind", "/", "/", "--die-with-parent", "--size"])
            .arg(size.to_string())
            .arg("--tmpfs")
            .arg(&data)
            .arg("--")
            .arg(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (found, url) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if let Some(url) = line.strip_prefix("assent: listening on ") {
                    let _ = found.send(url.trim().to_owned());
                }
            }
        });
        let url = url
            .recv_timeout(Duration::from_secs(60))
            .expect("assent serve printed its address");
        SmallDisk {
            child,
            _dir: dir,
            data,
            url,
        }
    }

    /// The data dir as the service sees it (its mount namespace, through /proc).
    fn inside(&self) -> PathBuf {
        let pid = serve_pid(&self.data).expect("the service process is found by its data dir");
        Path::new(&format!("/proc/{pid}/root")).join(self.data.strip_prefix("/").unwrap())
    }

    fn token(&self, name: &str) -> String {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(text) = std::fs::read_to_string(self.inside().join(name)) {
                if !text.trim().is_empty() {
                    return text.trim().to_owned();
                }
            }
            assert!(Instant::now() < until, "the service wrote {name}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Writes a file until the tmpfs has no byte left.
    fn fill(&self) {
        let mut file = std::fs::File::create(self.inside().join("filler")).unwrap();
        let block = vec![0u8; 64 * 1024];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(err) => {
                    assert_eq!(err.raw_os_error(), Some(28), "filled until ENOSPC: {err}");
                    break;
                }
            }
        }
    }

    /// Frees the space [`SmallDisk::fill`] took.
    fn free(&self) {
        std::fs::remove_file(self.inside().join("filler")).unwrap();
    }
}

/// The pid of `assent serve --data-dir <data>` (not bwrap's, whose line names it too).
fn serve_pid(data: &Path) -> Option<u32> {
    let want = data.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").ok()? {
        let Ok(entry) = entry else { continue };
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(line) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let words: Vec<String> = line
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if words.first().map(String::as_str) == Some(BIN)
            && words.iter().any(|w| w == "serve")
            && words.iter().any(|w| w == &want)
        {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_full_disk_answers_503_the_disk_is_full_and_the_gate_says_so() {
    let disk = SmallDisk::start(4 * 1024 * 1024);
    let requester = disk.token("requester.token");
    let client = assent_client::blocking::Client::new(&disk.url, &requester).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ls = |n: usize| {
        let mut p = payload(
            "PreToolUse",
            &format!("full-{n}"),
            &format!("toolu_full_{n}"),
            "Bash",
            json!({"command": format!("ls -la sub{n}")}),
            tmp.path(),
        );
        p["cwd"] = json!(tmp.path());
        p
    };
    let before = gate(&disk.url, &requester, &[], &ls(0));
    assert_eq!(
        before.decision(),
        "allow",
        "with room on the disk, the harmless call is answered: {}",
        before.stderr
    );

    disk.fill();

    let request: assent_core::ActionRequest = serde_json::from_value(json!({
        "run_id": "full", "task_id": "full", "requested_by": "agent",
        "action": {"kind": "shell", "command": "ls -la sub1", "cwd": tmp.path()}
    }))
    .unwrap();
    match client.submit(&request, Instant::now() + Duration::from_secs(10)) {
        Err(ClientError::Api {
            status, message, ..
        }) => {
            assert_eq!(
                status, 503,
                "a full disk is the service unavailable, not a bug"
            );
            assert!(
                message.contains("the service's disk is full"),
                "and says so: {message}"
            );
        }
        other => panic!("a submit on a full disk is refused with a reason: {other:?}"),
    }

    let denied = gate(&disk.url, &requester, &[], &ls(2));
    assert_eq!(
        denied.decision(),
        "deny",
        "the gate fails closed: {}",
        denied.stderr
    );
    assert!(
        denied.reason().contains("the service's disk is full"),
        "the deny reason tells the agent (and its person) why: {}",
        denied.reason()
    );

    disk.free();
    let after = gate(&disk.url, &requester, &[], &ls(3));
    assert_eq!(
        after.decision(),
        "allow",
        "once space is freed the service answers again, without a restart (the failed \
         commit does not leave its database connection unusable): {}",
        after.reason()
    );
}
