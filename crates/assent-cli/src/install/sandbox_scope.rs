//! What an install's `--sandbox` keeps out of reach on this machine, and the line that says
//! so.

use std::path::PathBuf;

use super::shared::{InstallError, Target};

/// The places an agent's sandbox keeps out of reach: a project install also guards the
/// project's hook settings.
pub(crate) fn sandbox_places(
    target: &Target,
    hide: &[PathBuf],
) -> Result<crate::sandbox::places::Places, InstallError> {
    Ok(crate::sandbox::places::places(&sandbox_machine(
        target, hide,
    )?))
}

/// This machine as the sandbox sees it: the working directory's project only for a project
/// install.
pub(crate) fn sandbox_machine(
    target: &Target,
    hide: &[PathBuf],
) -> Result<crate::sandbox::places::Machine, InstallError> {
    let mut machine =
        crate::sandbox::places::Machine::from_env(hide.to_vec()).ok_or(InstallError::NoHome)?;
    if !target.project {
        machine.cwd = None;
    }
    Ok(machine)
}

pub(crate) fn sandbox_summary(what: &str, places: &crate::sandbox::places::Places) -> String {
    format!(
        "+ {what}: on, no start without it, no unsandboxed fallback; {} places unreadable and \
         unwritable (Assent's data, config, state, policy; secret stores), {} hook settings \
         read-only",
        places.hidden.len(),
        places.read_only.len()
    )
}
