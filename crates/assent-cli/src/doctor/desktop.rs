//! The desktop's notification server (`org.freedesktop.Notifications`) and tray host
//! (`org.kde.StatusNotifierWatcher`) on the session bus, asked with `busctl` or `gdbus`
//! (`NameHasOwner`). Missing ones warn: prompts still wait for a decision, only unseen.

use std::process::{Command, Stdio};

use super::report::Check;

pub const NOTIFICATIONS: &str = "org.freedesktop.Notifications";
pub const TRAY_WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// Whether a bus name has an owner: `Err(why)` when the bus could not be asked.
pub type Owner = Result<bool, String>;

/// Reads `NameHasOwner`'s answer: busctl prints `b true`, gdbus `(true,)`.
pub fn parse_has_owner(output: &str) -> Option<bool> {
    let text = output.trim();
    match text {
        "b true" | "(true,)" => Some(true),
        "b false" | "(false,)" => Some(false),
        _ => None,
    }
}

pub fn notifications(owner: &Owner) -> Check {
    present(
        "desktop.notifications",
        NOTIFICATIONS,
        owner,
        "run a notification daemon (your desktop's, or dunst/mako) in the session: prompts \
         reach the desktop window only",
    )
}

pub fn tray(owner: &Owner) -> Check {
    present(
        "desktop.tray",
        TRAY_WATCHER,
        owner,
        "use a panel with a StatusNotifier tray (GNOME: the AppIndicator extension): the \
         pending count shows in the window only",
    )
}

fn present(check: &str, name: &str, owner: &Owner, fix: &str) -> Check {
    match owner {
        Ok(true) => Check::pass(check, format!("{name} is on the session bus")),
        Ok(false) => Check::warn(check, format!("no {name} on the session bus"), fix),
        Err(why) => Check::warn(
            check,
            format!("cannot ask the session bus for {name}: {why}"),
            fix,
        ),
    }
}

/// Asks the session bus whether `name` has an owner.
pub fn has_owner(name: &str) -> Owner {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none_or(|a| a.is_empty()) {
        return Err("no session bus (DBUS_SESSION_BUS_ADDRESS is unset)".into());
    }
    let busctl = [
        "busctl",
        "--user",
        "call",
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "NameHasOwner",
        "s",
        name,
    ];
    let gdbus = [
        "gdbus",
        "call",
        "--session",
        "--dest",
        "org.freedesktop.DBus",
        "--object-path",
        "/org/freedesktop/DBus",
        "--method",
        "org.freedesktop.DBus.NameHasOwner",
        name,
    ];
    let mut last = "neither busctl nor gdbus is installed".to_owned();
    for argv in [&busctl[..], &gdbus[..]] {
        let Some((program, args)) = argv.split_first() else {
            continue;
        };
        let output = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .output();
        match output {
            Ok(out) if out.status.success() => {
                if let Some(owned) = parse_has_owner(&String::from_utf8_lossy(&out.stdout)) {
                    return Ok(owned);
                }
                last = format!("{program} gave no answer");
            }
            Ok(out) => last = format!("{program}: {}", String::from_utf8_lossy(&out.stderr).trim()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => last = format!("{program}: {err}"),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;

    #[test]
    fn both_tools_answers_are_read_and_absence_only_warns() {
        assert_eq!(parse_has_owner("b true\n"), Some(true), "busctl's form");
        assert_eq!(parse_has_owner("(false,)\n"), Some(false), "gdbus's form");
        assert_eq!(
            parse_has_owner("garbage"),
            None,
            "anything else is no answer"
        );
        assert_eq!(
            tray(&Ok(false)).status,
            Status::Warn,
            "no tray host is a warning, not a failure"
        );
        assert_eq!(
            notifications(&Ok(true)).status,
            Status::Pass,
            "a notification server passes"
        );
    }
}
