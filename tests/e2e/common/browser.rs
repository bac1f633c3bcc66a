//! Chromium for the browser suites: Debian's Chromium, headless, driven by chromedriver (W3C
//! WebDriver) on a fresh profile, with a virtual authenticator (the WebDriver WebAuthn
//! extension) standing in for a phone's or laptop's passkey.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

use super::eventually;

const WAIT: Duration = Duration::from_secs(20);
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver on a free port, and a browser session on a fresh profile with a virtual
/// authenticator that holds discoverable, user-verifying passkeys.
pub struct Browser {
    driver: Child,
    port: u16,
    pub client: Client,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| {
                panic!("{CHROMEDRIVER} must run (apt-get install chromium-driver): {err}")
            });
        eventually("chromedriver to listen", WAIT, || async {
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .ok()
        })
        .await;
        let profile = tempfile::tempdir().expect("a browser profile dir");
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1280,800",
                    "--font-render-hinting=none",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a Chromium session");
        let browser = Browser {
            driver,
            port,
            client,
            _profile: profile,
        };
        let added = browser
            .session_post(
                "webauthn/authenticator",
                json!({
                    "protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
                    "hasUserVerification": true, "isUserVerified": true,
                }),
            )
            .await;
        assert!(
            added.is_ok(),
            "the virtual authenticator is added: {added:?}"
        );
        browser
    }

    /// POSTs `body` to chromedriver's `/session/{id}/{what}` (its extensions, which the
    /// WebDriver client does not wrap); the answer's `value`.
    async fn session_post(&self, what: &str, body: Value) -> Result<Value, String> {
        let session = self
            .client
            .session_id()
            .await
            .map_err(|err| err.to_string())?
            .ok_or("no session")?;
        let answer = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/session/{session}/{what}",
                self.port
            ))
            .json(&body)
            .send()
            .await
            .map_err(|err| err.to_string())?;
        let status = answer.status();
        let value: Value = answer.json().await.map_err(|err| err.to_string())?;
        if status.is_success() {
            Ok(value["value"].clone())
        } else {
            Err(format!("{status}: {value}"))
        }
    }

    /// Runs a DevTools protocol command on the page (chromedriver's `goog/cdp/execute`).
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.session_post("goog/cdp/execute", json!({ "cmd": cmd, "params": params }))
            .await
            .unwrap_or_else(|err| panic!("DevTools {cmd}: {err}"))
    }

    /// The page as a phone shows it: a `width`×`height` CSS-pixel viewport at twice the
    /// pixel density, touch, a mobile layout viewport (as Chromium's device mode does).
    pub async fn emulate_phone(&self, width: u32, height: u32) {
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 2, "mobile": true }),
        )
        .await;
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": true, "maxTouchPoints": 5 }),
        )
        .await;
    }

    /// Back to the desktop window's own viewport.
    pub async fn emulate_desktop(&self) {
        self.cdp("Emulation.clearDeviceMetricsOverride", json!({}))
            .await;
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": false }),
        )
        .await;
    }

    /// Runs `script` in the page (a promise is awaited) and returns its value.
    pub async fn run(&self, script: &str) -> Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|err| panic!("{script}: {err}"))
    }

    /// The page's cookie of that name, as WebDriver (not the page) sees it.
    pub async fn cookie(&self, name: &str) -> Option<(String, String)> {
        let cookie = self.client.get_named_cookie(name).await.ok()?;
        Some((cookie.value().to_owned(), cookie.to_string()))
    }

    /// The viewport as a PNG into `$ASSENT_SCREENSHOTS/name`, when that is set.
    pub async fn screenshot(&self, name: &str) {
        let Ok(dir) = std::env::var("ASSENT_SCREENSHOTS") else {
            return;
        };
        let png = self
            .client
            .screenshot()
            .await
            .expect("a screenshot of the page");
        assert!(png.starts_with(b"\x89PNG"), "WebDriver answers a PNG");
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, png).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
    }

    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A failed test still ends its chromedriver (and with it, its Chromium).
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// A one-time enrolment link for `person` of the service whose data dir is `data_dir`, at
/// the service's `localhost` name (WebAuthn needs a domain, not an IP address).
pub async fn invite(data_dir: &std::path::Path, port: u16, person: &str) -> String {
    let directory = assent_server::Directory::open(data_dir)
        .await
        .expect("open the identities");
    let invite = directory
        .invite(person, "15m", &format!("http://localhost:{port}"))
        .await
        .unwrap_or_else(|err| panic!("invite {person}: {err}"));
    directory.close().await;
    invite.link
}
