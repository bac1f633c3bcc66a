//! Replacing a file whole: readers (the service reloading its policy file, a login session
//! reading the autostart entry, the next start reading the settings) see the old content or
//! the new, never a half-written file — not even after a crash mid-write.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// How many temp names to try before giving up (each is skipped only if it already exists,
/// e.g. left behind by a crashed process that had the same pid).
const TEMP_NAME_ATTEMPTS: u32 = 100;

/// Writes `contents` to `path` atomically: a temp file in the same directory (hidden, not
/// ending in the target's extension, so no one scanning the directory takes it for an
/// entry), written, flushed to disk, then renamed over `path`, and the directory flushed so
/// the rename survives a crash. `mode` applies to a new file (minus the umask). The parent
/// directory is created if missing. On failure the temp file is removed and `path` is left
/// as it was.
pub fn write(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let (tmp, mut file) = create_temp(dir, path, mode)?;
    let written = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    drop(file);
    if let Err(err) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(err);
    }
    File::open(dir)?.sync_all()
}

/// A new, empty temp file beside `path`: `.<name>.<pid>.<n>.tmp`.
fn create_temp(dir: &Path, path: &Path, mode: u32) -> io::Result<(PathBuf, File)> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pid = std::process::id();
    let mut last = io::Error::new(io::ErrorKind::AlreadyExists, "no free temp name");
    for attempt in 0..TEMP_NAME_ATTEMPTS {
        let tmp = dir.join(format!(".{name}.{pid}.{attempt}.tmp"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = err,
            Err(err) => return Err(err),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("list the dir")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_an_existing_file_whole_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("Assent.desktop");
        std::fs::write(
            &path,
            "an older, much longer entry than the one replacing it\n",
        )
        .expect("an existing entry");

        write(&path, b"[Desktop Entry]\nExec=new", 0o644).expect("written");

        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[Desktop Entry]\nExec=new",
            "the new content replaces the old whole: no tail of the longer old file"
        );
        assert_eq!(
            names(dir.path()),
            vec!["Assent.desktop".to_owned()],
            "the temp file is renamed, not left behind"
        );
    }

    #[test]
    fn creates_the_directory_and_applies_the_mode() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("nested").join("desktop.json");

        write(&path, b"{}", 0o600).expect("written");

        assert_eq!(std::fs::read(&path).expect("read"), b"{}");
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "the file gets the mode asked for");
        assert_eq!(
            names(&dir.path().join("nested")),
            vec!["desktop.json".to_owned()],
            "only the file itself"
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        // A directory where the file should be: the rename fails.
        let path = dir.path().join("Assent.desktop");
        std::fs::create_dir(&path).expect("a directory in the way");
        std::fs::write(path.join("keep"), "kept").expect("its content");

        let result = write(&path, b"new", 0o644);

        assert!(result.is_err(), "renaming a file over a directory fails");
        assert_eq!(
            names(dir.path()),
            vec!["Assent.desktop".to_owned()],
            "the temp file is removed after a failure"
        );
        assert_eq!(
            std::fs::read_to_string(path.join("keep")).expect("read"),
            "kept",
            "what was there is untouched"
        );
    }
}
