//! End-to-end: the tray as a panel sees it. On Linux the tray is a StatusNotifierItem (ksni,
//! D-Bus only: the tray process links no GTK) with a `com.canonical.dbusmenu` menu; this suite plays the panel
//! on a private session bus (it owns `org.kde.StatusNotifierWatcher`), reads the item's icon,
//! title and menu as the desk goes idle → pending → disconnected, and clicks the menu:
//! a pause silences notifications, "Open Assent" and a prompt entry open the window, "Quit"
//! exits 0. Also: a second launch exits and makes the first one open its window. Run by
//! scripts/test.d/40-e2e.sh under Xvfb + dbus-run-session.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use assent_ipc::WINDOW_PROCESS_DEFAULTS;
use common::notification_server::{Call, NotificationServer};
use common::status_notifier::{MenuNode, Registered, TrayHost};
use common::{
    app_binary, children, comm, eventually, running, shell_request, submit_pending, window_process,
    x_window_titled, Desk, TestService, ASKED_COMMAND,
};

const WAIT: Duration = Duration::from_secs(30);
const WINDOW_TITLE: &str = "Assent";
/// The single-instance name the running desk owns on the session bus.
const DESK_BUS_NAME: &str = "dev.assent.Desktop";

struct App(Child);

impl App {
    fn start(desk: &Desk, args: &[&str], remote: Option<&TestService>) -> App {
        let mut command = Command::new(app_binary());
        command
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        desk.configure(&mut command);
        // The window sets these itself unless the person did (its memory defaults).
        for (name, _) in WINDOW_PROCESS_DEFAULTS {
            command.env_remove(name);
        }
        if let Some(service) = remote {
            command
                .env("ASSENT_URL", service.url())
                .env("ASSENT_TOKEN", &service.tokens.approver);
        }
        App(command.spawn().expect("start assent-desktop"))
    }

    async fn exited(&mut self) -> ExitStatus {
        eventually("the app to exit", WAIT, || {
            let status = self.0.try_wait().expect("wait");
            async move { status }
        })
        .await
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        if self.0.wait().is_err() {
            let _ = self.0.kill();
        }
    }
}

/// The decoded RGBA pixels of a PNG.
fn pixels(bytes: &[u8]) -> Vec<u8> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a sane size")];
    let frame = reader.next_frame(&mut buffer).expect("a frame");
    buffer.truncate(frame.buffer_size());
    buffer
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Icon {
    Idle,
    Pending,
    Disconnected,
    Other,
}

/// Which of the app's tray icons the item shows now (its IconName is a PNG file).
async fn icon(host: &TrayHost, item: &Registered) -> Icon {
    let path = host.item_string(item, "IconName").await;
    let Ok(bytes) = std::fs::read(&path) else {
        return Icon::Other;
    };
    let shown = pixels(&bytes);
    let candidates = [
        (Icon::Idle, &include_bytes!("../../icons/tray-idle.png")[..]),
        (
            Icon::Pending,
            &include_bytes!("../../icons/tray-pending.png")[..],
        ),
        (
            Icon::Disconnected,
            &include_bytes!("../../icons/tray-disconnected.png")[..],
        ),
    ];
    candidates
        .into_iter()
        .find(|(_, png)| pixels(png) == shown)
        .map_or(Icon::Other, |(icon, _)| icon)
}

async fn until_icon(host: &TrayHost, item: &Registered, want: Icon, why: &str) {
    eventually(why, WAIT, || async {
        (icon(host, item).await == want).then_some(())
    })
    .await;
}

/// Waits until the item's title shows the pending count `count` ("" for none): hosts that
/// draw text beside the icon use the title.
async fn until_label(host: &TrayHost, item: &Registered, count: &str) {
    let want = if count.is_empty() {
        "Assent".to_owned()
    } else {
        format!("Assent ({count})")
    };
    eventually(&format!("the tray title {want:?}"), WAIT, || async {
        (host.item_string(item, "Title").await == want).then_some(())
    })
    .await;
}

async fn register(host: &mut TrayHost) -> Registered {
    host.registered(WAIT)
        .await
        .expect("the app registers its tray item with the StatusNotifierWatcher")
}

/// The entries before the first separator: the pending prompts (or "Nothing waiting").
fn prompt_entries(menu: &MenuNode) -> Vec<&MenuNode> {
    menu.children
        .iter()
        .take_while(|node| !node.separator)
        .collect()
}

fn entry<'a>(menu: &'a MenuNode, label: &str) -> &'a MenuNode {
    menu.find(label)
        .unwrap_or_else(|| panic!("the tray menu has {label:?}: {menu:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tray_shows_idle_pending_and_disconnected_with_the_menu() {
    let mut host = TrayHost::start().await;
    let mut service = TestService::start().await;
    let desk = Desk::new();
    let _app = App::start(&desk, &["--tray"], Some(&service));
    let item = register(&mut host).await;

    until_icon(&host, &item, Icon::Idle, "the idle icon once connected").await;
    let properties = host.item_properties(&item).await;
    let status = properties.get("Status").map(|v| format!("{v:?}"));
    assert!(
        status.as_deref().is_some_and(|s| s.contains("Active")),
        "the item is shown (Status Active): {status:?}"
    );
    assert_eq!(
        host.item_string(&item, "Title").await,
        "Assent",
        "no count beside the icon while nothing waits"
    );
    let pixmap = properties.get("IconPixmap").map(|v| format!("{v:?}"));
    assert!(
        pixmap.as_ref().is_some_and(|p| p.len() > 1000),
        "the icon also travels as pixels, for hosts that do not read files: {pixmap:.100?}"
    );
    let menu = host.menu(&item).await;
    let top: Vec<String> = menu
        .children
        .iter()
        .filter(|node| !node.separator)
        .map(|node| node.label.clone())
        .collect();
    assert_eq!(
        top,
        [
            "Nothing waiting",
            "Pause notifications",
            "Open Assent",
            "Quit"
        ],
        "the idle menu"
    );
    assert!(
        !entry(&menu, "Nothing waiting").enabled,
        "the placeholder cannot be clicked"
    );
    let pause = entry(&menu, "Pause notifications");
    assert_eq!(
        pause.labels(),
        ["30 minutes", "1 hour", "Until resumed", "Resume"],
        "the pause submenu"
    );
    assert!(
        !entry(pause, "Resume").enabled,
        "nothing to resume while not paused"
    );

    let requester = service.requester();
    for n in 0..6 {
        let request = shell_request(&format!("run-tray-{n}"), ASKED_COMMAND, "/work/shop");
        submit_pending(&requester, &request).await;
    }
    until_label(&host, &item, "6").await;
    until_icon(&host, &item, Icon::Pending, "the pending icon").await;
    let menu = host.menu(&item).await;
    let prompts = prompt_entries(&menu);
    assert_eq!(
        prompts.len(),
        5,
        "at most five prompts in the menu: {menu:#?}"
    );
    for prompt in &prompts {
        assert!(
            prompt.enabled && prompt.label.contains("maven-test"),
            "each prompt entry names its action: {prompt:?}"
        );
    }

    assert!(
        !x_window_titled(WINDOW_TITLE),
        "--tray starts without a window"
    );
    let first_prompt = prompts[0].label.clone();
    host.click_label(&item, &first_prompt).await;
    eventually("a prompt entry to open the window", WAIT, || async {
        x_window_titled(WINDOW_TITLE).then_some(())
    })
    .await;

    service.stop().await;
    until_icon(&host, &item, Icon::Disconnected, "the disconnected icon").await;
    // No count while the service is out of reach.
    until_label(&host, &item, "").await;
    service.restart().await;
    until_icon(
        &host,
        &item,
        Icon::Pending,
        "pending again after reconnecting",
    )
    .await;
    until_label(&host, &item, "6").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tray_menu_pauses_opens_and_quits() {
    let mut notifications = NotificationServer::start().await;
    let mut host = TrayHost::start().await;
    let desk = Desk::new();
    let mut app = App::start(&desk, &["--tray"], None);
    let item = register(&mut host).await;
    let (requester, _approver) = desk.wait_ready(WAIT).await;
    until_icon(&host, &item, Icon::Idle, "the idle icon").await;

    host.click_label(&item, "30 minutes").await;
    eventually("'Resume' to be offered while paused", WAIT, || async {
        let menu = host.menu(&item).await;
        menu.find("Resume")
            .is_some_and(|resume| resume.enabled)
            .then_some(())
    })
    .await;
    let request = shell_request("run-paused", ASKED_COMMAND, "/work/shop");
    submit_pending(&requester, &request).await;
    until_label(&host, &item, "1").await;
    // The app sends a Notify before it redraws the tray: the count shows, so none came.
    let call = notifications.calls.try_recv();
    assert!(
        call.is_err(),
        "paused: the prompt shows in the tray only, no popup: {call:?}"
    );

    host.click_label(&item, "Resume").await;
    let Some(Call::Notify { summary, .. }) = notifications.next(WAIT).await else {
        panic!("after resuming, the waiting prompt gets its notification");
    };
    assert!(summary.starts_with("Allow "), "its summary asks: {summary}");

    assert!(!x_window_titled(WINDOW_TITLE), "no window yet");
    host.click_label(&item, "Open Assent").await;
    eventually("'Open Assent' to open the window", WAIT, || async {
        x_window_titled(WINDOW_TITLE).then_some(())
    })
    .await;

    // A request waits: Quit warns that it will be refused and offers to keep the desk.
    let menu = host.menu(&item).await;
    let quit = entry(&menu, "Quit — 1 waiting request will be refused");
    assert_eq!(
        quit.labels(),
        ["Keep Assent in the tray", "Quit and refuse them"],
        "with an agent waiting, Quit says how many are refused and offers to keep the desk"
    );
    host.click_label(&item, "Keep Assent in the tray").await;
    assert!(
        app.0.try_wait().expect("wait").is_none(),
        "keeping the desk in the tray keeps it running"
    );
    host.click_label(&item, "Quit and refuse them").await;
    let status = app.exited().await;
    assert_eq!(
        status.code(),
        Some(0),
        "Quit ends the app with exit 0: {status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_launch_exits_and_the_first_opens_its_window() {
    let desk = Desk::new();
    let first = App::start(&desk, &["--tray"], None);
    desk.wait_ready(WAIT).await;
    assert!(
        !x_window_titled(WINDOW_TITLE),
        "--tray starts without a window"
    );
    // No watcher in this test (a desktop without StatusNotifier support): the desk still
    // runs and owns its single-instance name.
    let bus = zbus::Connection::session().await.expect("the session bus");
    let dbus = zbus::fdo::DBusProxy::new(&bus)
        .await
        .expect("the bus daemon");
    eventually("the first instance to own its bus name", WAIT, || async {
        let name = zbus::names::BusName::try_from(DESK_BUS_NAME).ok()?;
        dbus.name_has_owner(name).await.ok()?.then_some(())
    })
    .await;

    let mut quiet = App::start(&desk, &["--tray"], None);
    let status = quiet.exited().await;
    assert_eq!(status.code(), Some(0), "a second --tray launch exits 0");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !x_window_titled(WINDOW_TITLE),
        "a second launch with --tray (autostart) opens no window"
    );

    let mut second = App::start(&desk, &[], None);
    let status = second.exited().await;
    assert_eq!(
        status.code(),
        Some(0),
        "the second launch hands over and exits 0"
    );
    eventually("the first instance to open its window", WAIT, || async {
        x_window_titled(WINDOW_TITLE).then_some(())
    })
    .await;
    let mut first = first;
    assert!(
        first.0.try_wait().expect("wait").is_none(),
        "the first instance keeps running"
    );
}

/// The libraries a process has mapped.
fn maps(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_is_a_separate_process_without_the_token_or_webkit_in_the_tray() {
    let service = TestService::start().await;
    let desk = Desk::new();
    let mut app = App::start(&desk, &["--tray"], Some(&service));
    let tray = app.0.id();
    let bus = zbus::Connection::session().await.expect("the session bus");
    let dbus = zbus::fdo::DBusProxy::new(&bus)
        .await
        .expect("the bus daemon");
    eventually("the app to own its bus name", WAIT, || async {
        let name = zbus::names::BusName::try_from(DESK_BUS_NAME).ok()?;
        dbus.name_has_owner(name).await.ok()?.then_some(())
    })
    .await;
    let tray_maps = maps(tray);
    for library in ["libwebkit2gtk", "libjavascriptcoregtk", "libgtk-3"] {
        assert!(
            !tray_maps.contains(library),
            "the idle tray process must not map {library}: that is what kept it above 60 MB"
        );
    }
    assert!(children(tray).is_empty(), "--tray starts no window process");

    // A second launch opens the window: a child process, which WebKit lives in.
    let mut second = App::start(&desk, &[], Some(&service));
    assert_eq!(
        second.exited().await.code(),
        Some(0),
        "the second launch hands over"
    );
    let window = window_process(tray, WAIT).await;
    eventually("the window to show", WAIT, || async {
        x_window_titled(WINDOW_TITLE).then_some(())
    })
    .await;
    assert!(
        maps(window).contains("libwebkit2gtk"),
        "the webview lives in the window process"
    );
    let environ =
        std::fs::read(format!("/proc/{window}/environ")).expect("the window's environment");
    let environ = String::from_utf8_lossy(&environ);
    assert!(
        !environ.contains(&service.tokens.approver),
        "the approver token never reaches the window process"
    );
    assert!(
        !environ
            .split('\0')
            .any(|entry| entry.starts_with("ASSENT_TOKEN=")),
        "no token variable in the window's environment"
    );
    // The window's memory defaults reach WebKit's web process, which reads them: without
    // JavaScriptCore's JIT it is lighter while the window is open (docs/benchmarks.md).
    // App::start leaves them unset, so the window process set them.
    let web = eventually("the window's WebKit web process", WAIT, || async {
        children(window)
            .into_iter()
            .find(|pid| comm(*pid) == "WebKitWebProces")
    })
    .await;
    let web_environ =
        std::fs::read(format!("/proc/{web}/environ")).expect("the web process's environment");
    let web_environ = String::from_utf8_lossy(&web_environ);
    for (name, value) in WINDOW_PROCESS_DEFAULTS {
        let entry = format!("{name}={value}");
        assert!(
            web_environ.split('\0').any(|set| set == entry),
            "WebKit's web process runs with {entry}, the window's default"
        );
    }

    // The window process ending (a crash, or the window closed) leaves the tray running, and
    // the next Open starts a new one.
    let _ = Command::new("kill").arg(window.to_string()).status();
    eventually("the window process to end", WAIT, || async {
        (!running(window)).then_some(())
    })
    .await;
    assert!(
        app.0.try_wait().expect("wait").is_none(),
        "the tray keeps running"
    );
    let mut third = App::start(&desk, &[], Some(&service));
    assert_eq!(
        third.exited().await.code(),
        Some(0),
        "the third launch hands over"
    );
    let reopened = window_process(tray, WAIT).await;
    assert_ne!(reopened, window, "a new window process");

    // The tray process dying (even SIGKILL) closes the window's link: no orphan window.
    let _ = Command::new("kill")
        .args(["-KILL", &tray.to_string()])
        .status();
    let _ = app.exited().await;
    eventually("the orphaned window to close itself", WAIT, || async {
        (!running(reopened)).then_some(())
    })
    .await;
}

#[test]
fn help_and_version_print_and_exit() {
    for (flag, want) in [
        ("--help", "Usage: assent-desktop"),
        ("--version", "assent-desktop "),
    ] {
        let out = Command::new(app_binary())
            .arg(flag)
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .output()
            .expect("run assent-desktop");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(want),
            "{flag} prints and exits 0 without starting a desk: {:?} {stdout}",
            out.status
        );
    }
    let help = Command::new(app_binary())
        .arg("--help")
        .output()
        .expect("run assent-desktop");
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("ASSENT_DESKTOP_LISTEN"),
        "--help documents where the embedded service listens"
    );
    let unknown = Command::new(app_binary())
        .arg("--frobnicate")
        .output()
        .expect("run assent-desktop");
    assert_eq!(
        unknown.status.code(),
        Some(2),
        "an unknown option is a usage error, not a desk started by mistake"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_fails_tells_the_person_not_only_stderr() {
    let mut notifications = NotificationServer::start().await;
    let desk = Desk::new();
    // Something that is not this desk's service holds the embedded service's port.
    let _foreign = std::net::TcpListener::bind(("127.0.0.1", desk.port)).expect("take the port");
    let mut command = Command::new(app_binary());
    command
        .arg("--tray")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    desk.configure(&mut command);
    let child = command.spawn().expect("start assent-desktop");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the desk exits with a failure: {:?}",
        out.status
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("127.0.0.1:{}", desk.port))
            && stderr.contains("ASSENT_DESKTOP_LISTEN"),
        "stderr names the taken address and the way out: {stderr}"
    );
    let call = loop {
        match notifications.next(WAIT).await {
            Some(Call::Notify { summary, body, .. }) => break (summary, body),
            Some(_) => continue,
            None => panic!("a failed start raises a notification"),
        }
    };
    assert_eq!(
        call.0, "Assent could not start",
        "the notification says the desk did not start"
    );
    assert!(
        call.1.contains("something else already listens")
            && call.1.contains("ASSENT_DESKTOP_LISTEN"),
        "and why, with the way out: {}",
        call.1
    );
}
