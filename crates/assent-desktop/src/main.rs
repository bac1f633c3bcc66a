//! `assent-desktop`: the tray app. `--tray` starts without opening the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::io::Write;

const USAGE: &str = "\
assent-desktop — Assent's approval desk: the tray, notifications and the approval window.

Usage: assent-desktop [--tray]

Options:
  --tray       start in the tray, without opening the window (autostart uses it)
  -h, --help   print this help and exit
  -V, --version  print the version and exit

A second launch hands over to the running desk and opens its window.

Environment:
  ASSENT_URL, ASSENT_TOKEN   use this service and approver token instead of the saved settings
                             (both needed; they win over Settings)
  ASSENT_DESKTOP_LISTEN      where the embedded service listens (default 127.0.0.1:7391)
  ASSENT_POLICY              a policy file for the embedded service
  ASSENT_DESKTOP_SETTINGS    where the settings are stored
  ASSENT_LOG                 log filter for stderr (default info)
";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        let _ = out.write_all(USAGE.as_bytes());
        return std::process::ExitCode::SUCCESS;
    }
    if args.iter().any(|arg| arg == "--version" || arg == "-V") {
        let _ = writeln!(out, "assent-desktop {}", env!("CARGO_PKG_VERSION"));
        return std::process::ExitCode::SUCCESS;
    }
    if let Some(unknown) = args
        .iter()
        .find(|arg| arg.starts_with('-') && *arg != "--tray")
    {
        eprintln!("assent-desktop: unknown option {unknown:?}\n\n{USAGE}");
        return std::process::ExitCode::from(2);
    }
    assent_desktop::main_entry()
}
