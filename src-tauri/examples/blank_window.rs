//! The floor of a Tauri 2 window on this platform, for `src-tauri/bench/floor.sh`: one window
//! like assent-window's (same size, same process defaults), showing an empty page, with no
//! commands and no bridge. What it costs is what any Tauri 2 window costs here before the
//! desk's page and code add anything (docs/benchmarks.md, "Window memory and the Tauri floor").
use tauri::http::Response;
use tauri::{WebviewUrl, WebviewWindowBuilder};

/// The empty page, served by the example itself: an asset path would not do, as Tauri answers
/// a missing asset with the app's `index.html` (the desk's page).
const EMPTY_PAGE: &str = "<!doctype html><title>floor</title><p>floor</p>";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assent_ipc::set_process_defaults();
    // No argument: the empty page. `app:PATH`: one of the app's own assets (ui/dist, as
    // assent-window serves it; `app:index.html` is the desk's page, without its data).
    // Anything else is a URL (`about:blank` starts no web process at all).
    let url = match std::env::args().nth(1) {
        None => WebviewUrl::External("floor://localhost/".parse()?),
        Some(page) => match page.strip_prefix("app:") {
            Some(path) => WebviewUrl::App(path.into()),
            None => WebviewUrl::External(page.parse()?),
        },
    };
    tauri::Builder::default()
        .register_uri_scheme_protocol("floor", |_, _| {
            Response::builder()
                .header("content-type", "text/html")
                .body(EMPTY_PAGE.as_bytes().to_vec())
                .unwrap_or_default()
        })
        .setup(move |app| {
            WebviewWindowBuilder::new(app, "main", url.clone())
                .title("floor")
                .inner_size(1100.0, 760.0)
                .build()?;
            Ok(())
        })
        .run(tauri::generate_context!())?;
    Ok(())
}
