//! "Start at login": an XDG autostart entry (`~/.config/autostart/Assent.desktop`) that runs
//! `assent-desktop --tray`, written and removed by the auto-launch crate (the same entry the
//! Tauri autostart plugin wrote before the tray moved out of the Tauri process).

use auto_launch::{AutoLaunch, AutoLaunchBuilder, LinuxLaunchMode};

use crate::TRAY_FLAG;

/// The entry's name (the file is `<name>.desktop`).
pub const APP_NAME: &str = "Assent";

pub struct Autostart(Option<AutoLaunch>);

impl Autostart {
    pub fn new() -> Autostart {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|path| path.to_str().map(str::to_owned));
        let Some(exe) = exe else {
            tracing::warn!("cannot tell where this binary is: autostart is unavailable");
            return Autostart(None);
        };
        let built = AutoLaunchBuilder::new()
            .set_app_name(APP_NAME)
            .set_app_path(&exe)
            .set_args(&[TRAY_FLAG])
            .set_linux_launch_mode(LinuxLaunchMode::XdgAutostart)
            .build();
        match built {
            Ok(launch) => Autostart(Some(launch)),
            Err(err) => {
                tracing::warn!(%err, "autostart is unavailable");
                Autostart(None)
            }
        }
    }

    pub fn is_enabled(&self) -> Option<bool> {
        self.0.as_ref().and_then(|launch| launch.is_enabled().ok())
    }

    pub fn set(&self, enabled: bool) -> Result<(), String> {
        let launch = self
            .0
            .as_ref()
            .ok_or_else(|| "autostart is unavailable".to_owned())?;
        let result = if enabled {
            launch.enable()
        } else {
            launch.disable()
        };
        result.map_err(|err| err.to_string())
    }
}
