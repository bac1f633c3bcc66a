//! The window: created when opened, destroyed when closed (the tray and the service stay), so
//! an idle desk carries no webview.

use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

use crate::ipc::{DeskEvent, DESK_EVENT};

pub const MAIN: &str = "main";

/// Whether `id` is safe to put in the window's URL fragment.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Opens (or focuses) the window, on the prompt `focus` if given.
pub fn open<R: Runtime>(app: &AppHandle<R>, focus: Option<&str>) {
    let focus = focus.filter(|id| plain_id(id));
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
        if let Some(id) = focus {
            let event = DeskEvent::Focus {
                approval_id: id.to_owned(),
            };
            if let Err(err) = app.emit(DESK_EVENT, event) {
                tracing::warn!(%err, "cannot focus the prompt");
            }
        }
        return;
    }
    let path = match focus {
        Some(id) => format!("index.html#/pending/{id}"),
        None => "index.html".to_owned(),
    };
    let built = WebviewWindowBuilder::new(app, MAIN, WebviewUrl::App(path.into()))
        .title("Assent")
        .inner_size(1100.0, 760.0)
        .min_inner_size(720.0, 480.0)
        .build();
    if let Err(err) = built {
        tracing::error!(%err, "cannot open the window");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_plain_ids_reach_the_url() {
        assert!(
            super::plain_id("ap_01H-xyz"),
            "ids of the service are plain"
        );
        for hostile in ["", "../x", "a#b", "a?b=c", "a b", &"x".repeat(129)] {
            assert!(
                !super::plain_id(hostile),
                "{hostile:?} must not shape the URL"
            );
        }
    }
}
