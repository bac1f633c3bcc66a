//! WebDriver plumbing for the window suites: tauri-driver (which starts WebKitWebDriver and the
//! app), a session on the app, and waits that show the page when they time out.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

use super::{app_binary, children, eventually, running, Desk};

pub const WAIT: Duration = Duration::from_secs(30);
const DRIVER: &str = "http://127.0.0.1:4444";

/// tauri-driver, stopped with SIGTERM (SIGKILL would leave WebKitWebDriver on port 4445).
/// The processes it started (WebKitWebDriver, the app and its WebKit children) are ended
/// first, by id, so a failed test leaves no app holding the single-instance name.
pub struct Driver(Child);

/// The processes below `pid`, children before their parents' later siblings.
fn descendants(pid: u32) -> Vec<u32> {
    children(pid)
        .into_iter()
        .flat_map(|child| {
            let mut below = descendants(child);
            below.push(child);
            below
        })
        .collect()
}

impl Drop for Driver {
    fn drop(&mut self) {
        let below = descendants(self.0.id());
        for pid in &below {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
        // The next suite's tauri-driver starts WebKitWebDriver on the same fixed port (4445):
        // wait until this one's processes are really gone, or its session fails half-way.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while below.iter().any(|pid| running(*pid)) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub fn tauri_driver() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    home.map(|h| h.join("bin").join("tauri-driver"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("tauri-driver"))
}

pub async fn start_driver(desk: &Desk) -> Driver {
    start_driver_with(desk, &[]).await
}

/// [`start_driver`] with more environment for the app and its window (say `GTK_THEME`).
pub async fn start_driver_with(desk: &Desk, env: &[(&str, &str)]) -> Driver {
    let mut command = Command::new(tauri_driver());
    command.stdout(Stdio::null()).stderr(Stdio::inherit());
    desk.configure(&mut command);
    for (key, value) in env {
        command.env(key, value);
    }
    let driver = Driver(
        command
            .spawn()
            .expect("tauri-driver (scripts/deps.d/50-desktop.sh installs it)"),
    );
    eventually("tauri-driver to listen", WAIT, || async {
        tokio::net::TcpStream::connect("127.0.0.1:4444").await.ok()
    })
    .await;
    // tauri-driver listens before the WebKitWebDriver it spawned does (port 4445); a session
    // asked for in between is dropped half-way (seen on a loaded machine), so wait for both.
    eventually("WebKitWebDriver to listen", WAIT, || async {
        tokio::net::TcpStream::connect("127.0.0.1:4445").await.ok()
    })
    .await;
    driver
}

pub async fn session() -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "tauri:options".into(),
        serde_json::json!({ "application": app_binary() }),
    );
    caps.insert("browserName".into(), serde_json::json!("wry"));
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(DRIVER)
        .await
        .expect("a WebDriver session on the app")
}

/// Waits for `css`; on a timeout the panic carries the page, to see what was shown instead. A
/// find the page's own navigation cut short (the desk reloads itself after a passkey is
/// enrolled or a person signs in) is asked again on the new page.
pub async fn element(client: &Client, css: &str) -> fantoccini::elements::Element {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match client
            .wait()
            .at_most(left)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(element) => return element,
            Err(err) if navigated(&err) && Instant::now() < deadline => continue,
            Err(err) => {
                let page = client.source().await.unwrap_or_default();
                let page: String = page.chars().take(4000).collect();
                panic!("{css} must appear: {err}\npage:\n{page}")
            }
        }
    }
}

/// WebDriver's answer when the page navigated under a find ("aborted by navigation"), or the
/// element found belongs to the page before it: nothing was done yet.
fn navigated(err: &fantoccini::error::CmdError) -> bool {
    err.to_string().contains("aborted by navigation") || stale(err)
}

/// The element belongs to a page the desk has since reloaded.
fn stale(err: &fantoccini::error::CmdError) -> bool {
    err.to_string().contains("stale element")
}

/// The DOM property `name` of `css` once it is there (`checked`, `value`…).
pub async fn prop_of(client: &Client, css: &str, name: &str) -> Option<String> {
    element(client, css)
        .await
        .prop(name)
        .await
        .unwrap_or_else(|err| panic!("the {name} of {css}: {err}"))
}

pub async fn text_of(client: &Client, css: &str) -> String {
    element(client, css).await.text().await.expect("text")
}

/// Clicks `css` once it is there; an element gone stale before the click (the page reloaded
/// between find and click) is found again on the new page.
pub async fn click(client: &Client, css: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        match element(client, css).await.click().await {
            Ok(()) => return,
            Err(err) if stale(&err) && Instant::now() < deadline => {}
            Err(err) => panic!("{css} must be clickable: {err}"),
        }
    }
}
