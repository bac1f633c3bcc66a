//! The desk's page, served at `/desk/`: the UI the window shows (`ui/dist`, built by
//! `npm run build`), embedded in release builds and read from disk in debug builds. Any path
//! that is not a file answers the page itself (`/desk/enrol` is a view of it). Every answer
//! carries a strict CSP: scripts, styles and connections only from the desk's own origin.

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../../ui/dist"]
#[allow_missing = true]
struct Dist;

/// The page's policy: nothing from anywhere else, no inline script or style, no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; \
     manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

const INDEX: &str = "index.html";

/// `/desk` → `/desk/` (relative asset paths resolve under it).
pub async fn desk_root() -> Redirect {
    Redirect::permanent("/desk/")
}

/// `/desk/`: the page.
pub async fn desk_index() -> Response {
    serve(INDEX)
}

/// `/desk/{*path}`: a file of the page, else the page (its own views, e.g. `enrol`).
pub async fn desk_file(Path(path): Path<String>) -> Response {
    if Dist::get(&path).is_some() && !path.contains("..") {
        serve(&path)
    } else {
        serve(INDEX)
    }
}

fn serve(path: &str) -> Response {
    let Some(file) = Dist::get(path) else {
        let body = "The desk's page is not built: run `cd ui && npm ci && npm run build`, then rebuild assent.";
        return (StatusCode::NOT_FOUND, secured(), body).into_response();
    };
    let cache = if path.starts_with("assets/") {
        // Vite names these by content hash: a new build has new names.
        "public, max-age=31536000, immutable"
    } else {
        // The page, the worker and the manifest must be fresh after an upgrade.
        "no-cache"
    };
    (
        secured(),
        [
            (CONTENT_TYPE, HeaderValue::from_static(content_type(path))),
            (CACHE_CONTROL, HeaderValue::from_static(cache)),
        ],
        file.data.into_owned(),
    )
        .into_response()
}

/// The headers every desk answer carries.
fn secured() -> [(HeaderName, HeaderValue); 4] {
    [
        (
            HeaderName::from_static("content-security-policy"),
            HeaderValue::from_static(CSP),
        ),
        (
            HeaderName::from_static("x-content-type-options"),
            HeaderValue::from_static("nosniff"),
        ),
        (
            HeaderName::from_static("referrer-policy"),
            HeaderValue::from_static("no-referrer"),
        ),
        (
            HeaderName::from_static("x-frame-options"),
            HeaderValue::from_static("DENY"),
        ),
    ]
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("webmanifest") => "application/manifest+json",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("woff2") => "font/woff2",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}
