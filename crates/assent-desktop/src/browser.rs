//! Opening a web page in the person's browser: the desk's own pages a prompt points to
//! (a prompt held for a passkey, which only the browser's desk can approve).

/// Opens `url` in the person's browser (`xdg-open`); a failure leaves the notification's
/// words, which name the same page.
pub(crate) fn open_in_browser(url: &str) {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        tracing::warn!(%url, "not a web page: not opened");
        return;
    }
    if let Err(err) = std::process::Command::new("xdg-open")
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        tracing::warn!(%err, "cannot open the browser for a step-up");
    }
}
