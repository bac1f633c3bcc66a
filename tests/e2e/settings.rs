//! End-to-end through the Settings page, with WebDriver (tauri-driver + WebKitWebDriver)
//! driving the real app: toggling "start at login" writes and removes the XDG autostart entry
//! (which starts the app with `--tray`), and a new service URL + token take effect at once —
//! the desk follows the new service's prompts without a restart, and back to the embedded one;
//! the audit's key is shown as `assent audit key` prints it, and a denial's reason changed with
//! `sqlite3` in the running desk's database turns the quiet "verified" into a warning that
//! names the changed event.
//! Run by scripts/test.d/40-e2e.sh under Xvfb + dbus-run-session, one suite at a time.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use std::path::PathBuf;

use common::driver::{click, element, prop_of, session, start_driver, text_of, WAIT};
use common::{
    app_binary, eventually, shell_request, submit_pending, Desk, TestService, ASKED_COMMAND,
};

/// The `.desktop` files in the private `$XDG_CONFIG_HOME/autostart`.
fn autostart_entries(desk: &Desk) -> Vec<PathBuf> {
    let dir = desk.config_dir().join("autostart");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "desktop"))
        .collect()
}

/// A complete XDG entry: its text and its `Exec` line.
struct Entry {
    text: String,
    exec: String,
}

/// The autostart entry once it is complete: a `[Desktop Entry]` group with an `Exec` line.
/// The app writes it atomically (temp file + rename), so the first entry seen is complete;
/// waiting for a complete one, not just a file, keeps this test from reading a file that
/// is still being written, however the app writes it (the atomicity has its unit test).
fn complete_entry(desk: &Desk) -> Option<Entry> {
    let text = std::fs::read_to_string(autostart_entries(desk).first()?).ok()?;
    if text.lines().next() != Some("[Desktop Entry]") {
        return None;
    }
    let exec = text
        .lines()
        .find_map(|line| line.strip_prefix("Exec="))?
        .to_owned();
    Some(Entry { text, exec })
}

/// What the page says after a save ("Saved.", or why not), once it says anything.
async fn save_answer(client: &fantoccini::Client, what: &str) -> String {
    eventually(what, WAIT, || async {
        let text = text_of(client, "[data-testid=settings-message]").await;
        (!text.is_empty()).then_some(text)
    })
    .await
}

/// Whether the checkbox `css` shows ticked ("true"/"false").
async fn checked(client: &fantoccini::Client, css: &str) -> Option<String> {
    prop_of(client, css, "checked").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn autostart_toggle_writes_and_removes_the_desktop_entry() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    desk.wait_ready(WAIT).await;
    assert!(
        autostart_entries(&desk).is_empty(),
        "no autostart entry before the person asks for one"
    );

    click(&client, "[data-testid=tab-settings]").await;
    click(&client, "[data-testid=autostart]").await;
    let Entry { text, exec } = eventually("a complete autostart entry", WAIT, || async {
        complete_entry(&desk)
    })
    .await;
    let files: Vec<_> = std::fs::read_dir(desk.config_dir().join("autostart"))
        .expect("the autostart dir")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    assert_eq!(
        files,
        vec![std::ffi::OsString::from("Assent.desktop")],
        "the entry appears by a rename: no temp file is left beside it"
    );
    let binary = app_binary().canonicalize().expect("the app binary");
    assert!(
        exec.starts_with(&binary.display().to_string()),
        "the entry starts this binary: {exec}"
    );
    assert!(
        exec.split_whitespace().any(|arg| arg == "--tray"),
        "at login the app starts in the tray, without a window: {exec}"
    );
    assert!(
        text.contains("Type=Application"),
        "a valid XDG autostart entry: {text}"
    );
    let ticked = checked(&client, "[data-testid=autostart]").await;
    assert_eq!(ticked.as_deref(), Some("true"), "the setting shows as on");

    click(&client, "[data-testid=autostart]").await;
    eventually("the autostart entry to go", WAIT, || async {
        autostart_entries(&desk).is_empty().then_some(())
    })
    .await;

    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_at_login_that_cannot_be_written_says_why_and_shows_off() {
    let desk = Desk::new();
    // A file where the autostart directory goes: the entry cannot be written.
    std::fs::create_dir_all(desk.config_dir()).unwrap();
    std::fs::write(desk.config_dir().join("autostart"), "not a directory").unwrap();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    desk.wait_ready(WAIT).await;

    click(&client, "[data-testid=tab-settings]").await;
    click(&client, "[data-testid=autostart]").await;
    let message = eventually("the save's answer", WAIT, || async {
        let text = element(&client, "[data-testid=settings-message]")
            .await
            .text()
            .await
            .ok()?;
        text.starts_with("Saved.").then_some(text)
    })
    .await;
    assert!(
        message.contains("Start at login was not changed: cannot write the autostart entry"),
        "the person is told start at login did not take, and why (it was silent): {message}"
    );
    let ticked = checked(&client, "[data-testid=autostart]").await;
    assert_eq!(
        ticked.as_deref(),
        Some("false"),
        "the box shows what holds: start at login is off"
    );
    assert!(
        autostart_entries(&desk).is_empty(),
        "no entry anywhere else either"
    );
    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_service_url_and_token_apply_at_once() {
    let desk = Desk::new();
    let other = TestService::start().await;
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (embedded_requester, _approver) = desk.wait_ready(WAIT).await;

    click(&client, "[data-testid=tab-settings]").await;
    let shown = text_of(&client, "[data-testid=connected-url]").await;
    assert_eq!(shown, desk.url(), "starts on the embedded service");
    element(&client, "[data-testid=service-url]")
        .await
        .send_keys(&other.url())
        .await
        .expect("type the URL");
    element(&client, "[data-testid=token]")
        .await
        .send_keys(&other.tokens.approver)
        .await
        .expect("type the token");
    click(&client, "[data-testid=save-service]").await;
    eventually("the desk to follow the new service", WAIT, || async {
        let shown = text_of(&client, "[data-testid=connected-url]").await;
        (shown == other.url()).then_some(())
    })
    .await;
    eventually("the link to come up", WAIT, || async {
        let link = text_of(&client, "[data-testid=link]").await;
        (link == "connected").then_some(())
    })
    .await;

    let request = shell_request("run-elsewhere", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&other.requester(), &request).await;
    click(&client, "[data-testid=tab-pending]").await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{approval_id}']"),
    )
    .await;
    let stored = std::fs::read_to_string(desk.config_dir().join("desktop.json"))
        .expect("the settings are saved");
    assert!(
        stored.contains(&other.url()),
        "the next start uses it too: {stored}"
    );

    click(&client, "[data-testid=tab-settings]").await;
    let url_field = element(&client, "[data-testid=service-url]").await;
    // Backspaces, not WebDriver's Clear: the page follows typing (input events).
    let backspaces = char::from(fantoccini::key::Key::Backspace)
        .to_string()
        .repeat(other.url().len());
    url_field
        .send_keys(&backspaces)
        .await
        .expect("erase the URL");
    click(&client, "[data-testid=save-service]").await;
    eventually(
        "the desk to return to the embedded service",
        WAIT,
        || async {
            let shown = text_of(&client, "[data-testid=connected-url]").await;
            (shown == desk.url()).then_some(())
        },
    )
    .await;
    let request = shell_request("run-home", ASKED_COMMAND, "/work/shop");
    let home_id = submit_pending(&embedded_requester, &request).await;
    click(&client, "[data-testid=tab-pending]").await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{home_id}']"),
    )
    .await;
    assert!(
        client
            .find(fantoccini::Locator::Css(&format!(
                "[data-approval-id='{approval_id}']"
            )))
            .await
            .is_err(),
        "the other service's prompt is gone with it"
    );

    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ticking_a_box_saves_only_the_box_not_what_is_half_typed_elsewhere() {
    let desk = Desk::new();
    // A stored token without a URL: the embedded service, until a URL is saved beside it.
    std::fs::write(
        desk.config_dir().join("desktop.json"),
        r#"{"token": "a-stored-token"}"#,
    )
    .unwrap();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    desk.wait_ready(WAIT).await;

    click(&client, "[data-testid=tab-settings]").await;
    let half_url = "http://127.0.0.1:9";
    element(&client, "[data-testid=service-url]")
        .await
        .send_keys(half_url)
        .await
        .expect("type a URL, not saved");
    element(&client, "[data-testid=deny-reasons-edit]")
        .await
        .send_keys("\nnot before the relea")
        .await
        .expect("type a reason, not saved");
    let reasons_typed = prop_of(&client, "[data-testid=deny-reasons-edit]", "value").await;
    click(&client, "[data-testid=notifications]").await;
    let message = save_answer(&client, "the save's answer").await;
    assert_eq!(
        message, "Saved.",
        "the box's save does not try the URL typed above (with the stored token it was a \
         service to connect to)"
    );
    assert_eq!(
        text_of(&client, "[data-testid=connected-url]").await,
        desk.url(),
        "still on the embedded service: only \"Save and connect\" connects"
    );
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(desk.config_dir().join("desktop.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        stored["notifications_off"], true,
        "the box's choice is saved: {stored}"
    );
    assert!(
        stored["service_url"].is_null(),
        "the half-typed URL is not saved: {stored}"
    );
    assert_eq!(
        prop_of(&client, "[data-testid=service-url]", "value")
            .await
            .as_deref(),
        Some(half_url),
        "what the person is typing stays in the field"
    );
    assert_eq!(
        prop_of(&client, "[data-testid=deny-reasons-edit]", "value").await,
        reasons_typed,
        "the reasons being typed are not replaced by the saved ones"
    );
    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_that_cannot_be_written_says_why_and_puts_the_box_back() {
    let desk = Desk::new();
    // A directory where the settings file goes: the desk starts on its defaults, and no save
    // can replace it.
    std::fs::create_dir_all(desk.config_dir().join("desktop.json")).unwrap();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    desk.wait_ready(WAIT).await;

    click(&client, "[data-testid=tab-settings]").await;
    assert_eq!(
        checked(&client, "[data-testid=notifications]")
            .await
            .as_deref(),
        Some("true"),
        "notifications are on by default"
    );
    click(&client, "[data-testid=notifications]").await;
    let message = save_answer(&client, "the save's answer").await;
    assert!(
        message.contains("desktop.json"),
        "the person is told the settings could not be written, and where: {message}"
    );
    assert_eq!(
        checked(&client, "[data-testid=notifications]")
            .await
            .as_deref(),
        Some("true"),
        "the box shows what holds: notifications are still on"
    );
    // Settings again from another tab: a fresh page with no message yet.
    click(&client, "[data-testid=tab-pending]").await;
    click(&client, "[data-testid=tab-settings]").await;
    click(&client, "[data-testid=autostart]").await;
    let message = save_answer(&client, "the second save's answer").await;
    assert!(
        message.contains("desktop.json"),
        "start at login is not saved either: {message}"
    );
    assert_eq!(
        checked(&client, "[data-testid=autostart]").await.as_deref(),
        Some("false"),
        "the box shows what holds: start at login is off"
    );
    assert!(
        autostart_entries(&desk).is_empty(),
        "a save that failed changes nothing: no autostart entry was written"
    );
    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_key_shows_and_a_tampered_store_shows_a_warning() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, reviewer) = desk.wait_ready(WAIT).await;
    let request = shell_request("run-audit", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;
    let deny = assent_protocol::DecisionRequest::Deny {
        reason: "not on my watch".to_owned(),
    };
    reviewer
        .decide(&approval_id, &deny)
        .await
        .expect("the reviewer denies");

    click(&client, "[data-testid=tab-settings]").await;
    let key = assent_server::audit_chain::AuditKey::load(&desk.data_dir().join("audit-key"))
        .expect("the embedded service made its checkpoint key in the data dir");
    let grouped: Vec<String> = key
        .key_id()
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    assert_eq!(
        text_of(&client, "[data-testid=audit-fingerprint]").await,
        grouped.join(" "),
        "the fingerprint is the key id every checkpoint names, in groups of four"
    );
    let shown = prop_of(&client, "[data-testid=audit-key]", "value").await;
    assert_eq!(
        shown.as_deref(),
        Some(key.public_hex().as_str()),
        "the key to copy is the public half `assent audit key` prints"
    );
    let verified = text_of(&client, "[data-testid=audit-verified]").await;
    assert!(
        verified.starts_with("Verified ") && verified.contains("last checkpoint at"),
        "an untouched audit is said to hold, quietly: {verified}"
    );

    // An attacker with the desk's files edits the denial's reason in the live database.
    let edited = std::process::Command::new("sqlite3")
        .args(["-cmd", ".timeout 5000"])
        .arg(desk.data_dir().join("assent.db"))
        .arg("UPDATE audit_events SET body = replace(body, 'not on my watch', 'fine by me') WHERE decision = 'denied'")
        .status()
        .expect("sqlite3 runs");
    assert!(edited.success(), "sqlite3 edits the running desk's file");
    click(&client, "[data-testid=audit-verify]").await;
    let warning = text_of(&client, "[data-testid=audit-warning]").await;
    assert!(
        warning.contains("The audit does not hold") && warning.contains("was changed"),
        "the changed denial is a warning that says what kind of break it is: {warning}"
    );
    assert!(
        client
            .find(fantoccini::Locator::Css("[data-testid=audit-verified]"))
            .await
            .is_err(),
        "no \"verified\" line beside the warning"
    );

    client.close().await.expect("end the session");
}
