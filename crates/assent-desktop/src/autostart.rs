//! "Start at login": an XDG autostart entry (`~/.config/autostart/Assent.desktop`) that runs
//! `assent-desktop --tray`. The same file, at the same place and with the same content, as
//! the auto-launch crate wrote before; but written atomically ([`atomic_file`]): auto-launch
//! truncated the entry and wrote it in place, so a reader (a test, or a login after a crash
//! mid-write) could find it empty.

use std::path::{Path, PathBuf};

use assent_fs::atomic_file;

/// Starts with no window (autostart uses it).
pub const TRAY_FLAG: &str = "--tray";

/// The entry's name (the file is `<name>.desktop`).
pub const APP_NAME: &str = "Assent";
/// An autostart entry is readable by the session that starts it; nothing in it is secret.
const ENTRY_MODE: u32 = 0o644;

#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error("autostart is unavailable: no home directory, or this binary's path is unknown")]
    Unavailable,
    #[error("cannot write the autostart entry {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot remove the autostart entry {path}: {source}")]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The entry this binary would write: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: PathBuf,
    text: String,
}

pub struct Autostart(Option<Entry>);

impl Autostart {
    /// The entry for this binary in `$HOME/.config/autostart`.
    pub fn new() -> Autostart {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|path| path.to_str().map(str::to_owned));
        let Some(exe) = exe else {
            tracing::warn!("cannot tell where this binary is: autostart is unavailable");
            return Autostart(None);
        };
        let Some(home) = dirs::home_dir() else {
            tracing::warn!("no home directory: autostart is unavailable");
            return Autostart(None);
        };
        Autostart::at(&home.join(".config").join("autostart"), &exe)
    }

    /// The entry starting `exe` in the autostart directory `dir`.
    fn at(dir: &Path, exe: &str) -> Autostart {
        Autostart(Some(Entry {
            path: dir.join(format!("{APP_NAME}.desktop")),
            text: entry_text(exe),
        }))
    }

    pub fn is_enabled(&self) -> Option<bool> {
        self.0.as_ref().map(|entry| entry.path.exists())
    }

    pub fn set(&self, enabled: bool) -> Result<(), AutostartError> {
        let entry = self.0.as_ref().ok_or(AutostartError::Unavailable)?;
        if enabled {
            atomic_file::write(&entry.path, entry.text.as_bytes(), ENTRY_MODE).map_err(|source| {
                AutostartError::Write {
                    path: entry.path.clone(),
                    source,
                }
            })
        } else {
            match std::fs::remove_file(&entry.path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    Err(AutostartError::Remove {
                        path: entry.path.clone(),
                        source: err,
                    })
                }
                _ => Ok(()),
            }
        }
    }
}

/// The entry's text, byte for byte what auto-launch 0.6 wrote (no trailing newline).
fn entry_text(exe: &str) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Version=1.0\n\
         Name={APP_NAME}\n\
         Comment={APP_NAME} startup script\n\
         Exec={exe} {TRAY_FLAG}\n\
         StartupNotify=false\n\
         Terminal=false"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_runs_this_binary_in_the_tray() {
        assert_eq!(
            entry_text("/opt/assent/assent-desktop"),
            "[Desktop Entry]\nType=Application\nVersion=1.0\nName=Assent\n\
             Comment=Assent startup script\nExec=/opt/assent/assent-desktop --tray\n\
             StartupNotify=false\nTerminal=false",
            "the same entry auto-launch wrote: an existing one stays valid"
        );
    }

    #[test]
    fn enabling_writes_the_entry_whole_and_disabling_removes_it() {
        let home = tempfile::tempdir().expect("temp dir");
        let dir = home.path().join(".config").join("autostart");
        let autostart = Autostart::at(&dir, "/opt/assent/assent-desktop");
        assert_eq!(autostart.is_enabled(), Some(false), "off until asked");

        std::fs::create_dir_all(&dir).expect("autostart dir");
        std::fs::write(
            dir.join("Assent.desktop"),
            "[Desktop Entry]\nExec=/old/path --tray\n# a longer, older entry with a comment\n",
        )
        .expect("an older entry");
        autostart.set(true).expect("enabled");
        assert_eq!(autostart.is_enabled(), Some(true));
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("Assent.desktop")],
            "one entry, no temp file left beside it"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("Assent.desktop")).expect("read"),
            entry_text("/opt/assent/assent-desktop"),
            "the older entry is replaced whole"
        );

        autostart.set(false).expect("disabled");
        assert_eq!(autostart.is_enabled(), Some(false), "the entry is gone");
        autostart.set(false).expect("disabling twice is harmless");
    }

    #[test]
    fn without_a_binary_path_autostart_is_unavailable() {
        let autostart = Autostart(None);
        assert_eq!(autostart.is_enabled(), None);
        assert!(matches!(
            autostart.set(true),
            Err(AutostartError::Unavailable)
        ));
    }
}
