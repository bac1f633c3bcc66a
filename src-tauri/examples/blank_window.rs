//! The floor of a Tauri 2 window on this platform, for `src-tauri/bench/floor.sh`: one window
//! like assent-window's (same size, same process defaults), showing an empty page, with no
//! commands and no bridge. What it costs is what any Tauri 2 window costs here before the
//! desk's page and code add anything (docs/benchmarks.md, "The floor of a Tauri 2 window").
use tauri::{WebviewUrl, WebviewWindowBuilder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assent_desktop::window::set_process_defaults();
    // `app:PATH` is a file of the app's own assets (ui/dist, as assent-window serves it; a
    // missing one is an empty 404 page); anything else is a URL.
    let page = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "app:floor.html".to_owned());
    let url = match page.strip_prefix("app:") {
        Some(path) => WebviewUrl::App(path.into()),
        None => WebviewUrl::External(page.parse()?),
    };
    tauri::Builder::default()
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
