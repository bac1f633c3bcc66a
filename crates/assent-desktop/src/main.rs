//! `assent-desktop`: the tray app. `--tray` starts without opening the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    assent_desktop::main_entry()
}
