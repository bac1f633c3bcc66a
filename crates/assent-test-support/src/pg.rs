//! A throwaway PostgreSQL cluster for tests: `initdb` into a temp dir, on a free port and its
//! own socket dir, listening on 127.0.0.1 only, run as the `postgres` user (initdb and
//! postgres refuse root). One shared cluster per test binary ([`shared`]) with a database per
//! test ([`database`]); a test that stops the server starts its own ([`Cluster::start`]).
//! Never the system cluster on 5432.
//!
//! Teardown: an owned cluster stops on drop (panics unwind through it). The shared one lives
//! in a static, which never drops, so each cluster also has a watchdog: a shell holding the
//! read end of a pipe whose write end only this process has. When the test binary exits —
//! normally, by panic, or killed — the pipe closes and the watchdog stops the server and
//! removes its directory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// A running private cluster; the superuser is `assent` (trust auth, loopback only).
pub struct Cluster {
    pub port: u16,
    dir: PathBuf,
    bin: PathBuf,
    /// Holds the watchdog's pipe open; dropping it (process exit) stops the cluster.
    watchdog: Mutex<Option<Child>>,
    databases: AtomicU32,
    /// Databases made for data dirs.
    named: Mutex<std::collections::HashSet<String>>,
}

/// The newest installed PostgreSQL's binaries (Debian keeps them off PATH).
fn pg_bin() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/deps.sh installs Debian's postgresql)")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .expect("a PostgreSQL version in /usr/lib/postgresql")
        .1
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs `program args` as the `postgres` user (we are root in CI), or as ourselves otherwise.
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "{what} must succeed for the throwaway cluster: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Cluster {
    /// Starts a fresh cluster. `durable`: fsync on (benchmarks); tests skip fsync, which only
    /// matters if the machine itself crashes (a killed server loses nothing acknowledged).
    pub fn start(durable: bool) -> Cluster {
        let dir =
            std::env::temp_dir().join(format!("assent-pg-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&dir).unwrap();
        Cluster::start_in(dir, durable)
    }

    fn start_in(dir: PathBuf, durable: bool) -> Cluster {
        let bin = pg_bin();
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.arg("postgres").arg(&dir);
                    c
                },
                "chown",
            );
        }
        let data = dir.join("pg");
        let mut initdb = as_postgres(&bin.join("initdb"));
        initdb.arg("-D").arg(&data).args([
            "-A",
            "trust",
            "-U",
            "assent",
            "--no-sync",
            "-E",
            "UTF8",
        ]);
        run(initdb, "initdb");
        let port = free_port();
        let mut opts = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=300 \
             -c shared_buffers=32MB",
            dir.display()
        );
        if !durable {
            // Commits still reach the OS before they are acknowledged (synchronous_commit stays
            // on), so stopping the server with `-m immediate` loses nothing acknowledged.
            opts.push_str(" -c fsync=off -c full_page_writes=off");
        }
        let watchdog = Command::new("setsid")
            .arg("sh")
            .arg("-c")
            .arg(format!(
                "read _x; {} -D {} stop -m immediate >/dev/null 2>&1; rm -rf {}",
                shell_as_postgres(&bin.join("pg_ctl")),
                data.display(),
                dir.display()
            ))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let cluster = Cluster {
            port,
            dir,
            bin,
            watchdog: Mutex::new(Some(watchdog)),
            databases: AtomicU32::new(0),
            named: Mutex::default(),
        };
        cluster.pg_ctl_start(&opts);
        cluster
    }

    fn pg_ctl_start(&self, opts: &str) {
        std::fs::write(self.dir.join("opts"), opts).unwrap();
        let mut start = as_postgres(&self.bin.join("pg_ctl"));
        start
            .arg("-D")
            .arg(self.dir.join("pg"))
            .arg("-o")
            .arg(opts)
            .arg("-l")
            .arg(self.dir.join("pg.log"))
            .args(["-w", "start"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        run(start, "pg_ctl start");
    }

    /// Stops the server at once (as a crash would); [`Cluster::resume`] starts it again.
    pub fn kill(&self) {
        let mut stop = as_postgres(&self.bin.join("pg_ctl"));
        stop.arg("-D")
            .arg(self.dir.join("pg"))
            .args(["stop", "-m", "immediate"]);
        run(stop, "pg_ctl stop");
    }

    /// Starts the server again after [`Cluster::kill`], on the same port.
    pub fn resume(&self) {
        let opts = std::fs::read_to_string(self.dir.join("opts")).unwrap();
        self.pg_ctl_start(&opts);
    }

    /// A URL for the database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://assent@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a fresh empty database; returns its URL.
    pub fn database(&self) -> String {
        // Unique across every instance of this file in the process (see [`shared`]).
        static INSTANCE: OnceLock<String> = OnceLock::new();
        let instance = INSTANCE.get_or_init(|| format!("{:p}", &INSTANCE).replace("0x", ""));
        let name = format!(
            "t_{instance}_{}",
            self.databases.fetch_add(1, Ordering::Relaxed)
        );
        self.create(&name);
        self.url(&name)
    }

    /// The database standing for the data dir `dir` (created on first use): a service
    /// restarted on the same data dir finds the same data.
    pub fn database_for(&self, dir: &Path) -> String {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        dir.hash(&mut hasher);
        let name = format!("d_{:016x}", hasher.finish());
        let mut created = self.named.lock().unwrap();
        if created.insert(name.clone()) {
            self.create(&name);
        }
        self.url(&name)
    }

    fn create(&self, name: &str) {
        let mut create = Command::new(self.bin.join("createdb"));
        create
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "assent",
            ])
            .arg(name);
        run(create, "createdb");
    }
}

fn shell_as_postgres(program: &Path) -> String {
    if is_root() {
        format!("runuser -u postgres -- {}", program.display())
    } else {
        program.display().to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Closing the watchdog's pipe makes it stop the server and remove the directory; wait
        // for it, so the next test finds the port and the disk clean.
        if let Ok(mut slot) = self.watchdog.lock() {
            if let Some(mut child) = slot.take() {
                drop(child.stdin.take());
                let _ = child.wait();
            }
        }
    }
}

static SHARED: OnceLock<Cluster> = OnceLock::new();

/// This test binary's cluster, started on first use. A binary that includes this file more
/// than once (as a module of its own and inside another module) still starts one: the first instance to create the process's directory starts the cluster and
/// then writes its port to `port`; the others adopt it (the first one's watchdog tears down).
pub fn shared() -> &'static Cluster {
    SHARED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("assent-pg-{}-shared", std::process::id()));
        let port_file = dir.join("port");
        if std::fs::create_dir(&dir).is_ok() {
            let cluster = Cluster::start_in(dir, false);
            let written = dir_of(&cluster).join("port.new");
            std::fs::write(&written, cluster.port.to_string()).unwrap();
            std::fs::rename(&written, &port_file).unwrap();
            return cluster;
        }
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Ok(port) = std::fs::read_to_string(&port_file) {
                return Cluster {
                    port: port.trim().parse().unwrap(),
                    dir: dir.clone(),
                    bin: pg_bin(),
                    watchdog: Mutex::new(None),
                    databases: AtomicU32::new(0),
                    named: Mutex::default(),
                };
            }
            assert!(
                std::time::Instant::now() < until,
                "the shared cluster becomes ready within a minute"
            );
            // Another thread of this process is running initdb; its port file is the signal.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    })
}

fn dir_of(cluster: &Cluster) -> &Path {
    &cluster.dir
}

/// A fresh database in this binary's cluster; returns its URL.
pub fn database() -> String {
    shared().database()
}
