//! The tray: icon state (idle, pending with the count, disconnected) and its menu (up to five
//! pending prompts, pause, open, quit). [`TrayView`] is the pure part; [`apply`] draws it.

use tauri::image::Image;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Runtime};

use crate::desk::{Desk, Link};
use crate::pause::PauseChoice;
use crate::text::untrusted_plain;

pub const TRAY_ID: &str = "assent";
/// Prompts listed in the menu.
pub const MAX_MENU_PROMPTS: usize = 5;
const MENU_PROMPT_CHARS: usize = 60;

const ICON_IDLE: &[u8] = include_bytes!("../../icons/tray-idle.png");
const ICON_PENDING: &[u8] = include_bytes!("../../icons/tray-pending.png");
const ICON_DISCONNECTED: &[u8] = include_bytes!("../../icons/tray-disconnected.png");

/// What a tray menu click means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuCommand {
    OpenPrompt(String),
    Pause(PauseChoice),
    Open,
    Quit,
}

impl MenuCommand {
    pub fn id(&self) -> String {
        match self {
            MenuCommand::OpenPrompt(id) => format!("prompt:{id}"),
            MenuCommand::Pause(PauseChoice::HalfHour) => "pause:half_hour".to_owned(),
            MenuCommand::Pause(PauseChoice::Hour) => "pause:hour".to_owned(),
            MenuCommand::Pause(PauseChoice::UntilResumed) => "pause:until_resumed".to_owned(),
            MenuCommand::Pause(PauseChoice::Resume) => "pause:resume".to_owned(),
            MenuCommand::Open => "open".to_owned(),
            MenuCommand::Quit => "quit".to_owned(),
        }
    }

    pub fn parse(id: &str) -> Option<MenuCommand> {
        if let Some(prompt) = id.strip_prefix("prompt:") {
            return Some(MenuCommand::OpenPrompt(prompt.to_owned()));
        }
        let command = match id {
            "pause:half_hour" => MenuCommand::Pause(PauseChoice::HalfHour),
            "pause:hour" => MenuCommand::Pause(PauseChoice::Hour),
            "pause:until_resumed" => MenuCommand::Pause(PauseChoice::UntilResumed),
            "pause:resume" => MenuCommand::Pause(PauseChoice::Resume),
            "open" => MenuCommand::Open,
            "quit" => MenuCommand::Quit,
            _ => return None,
        };
        Some(command)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrayState {
    Idle,
    Pending,
    Disconnected,
}

/// Everything the tray shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayView {
    pub state: TrayState,
    pub tooltip: String,
    /// Menu entries for pending prompts: (approval id, label).
    pub prompts: Vec<(String, String)>,
    /// All pending prompts (the menu lists at most five).
    pub count: usize,
    pub paused: bool,
}

impl TrayView {
    pub fn of(desk: &Desk, paused: bool) -> TrayView {
        let count = desk.pending_count();
        let (state, mut tooltip) = match (&desk.link, count) {
            (Link::Disconnected { reason }, _) => (
                TrayState::Disconnected,
                format!("Assent — disconnected: {}", untrusted_plain(reason, 80)),
            ),
            (Link::Connecting, _) => (TrayState::Disconnected, "Assent — connecting…".to_owned()),
            (Link::Connected, 0) => (TrayState::Idle, "Assent — nothing waiting".to_owned()),
            (Link::Connected, 1) => (TrayState::Pending, "Assent — 1 prompt waiting".to_owned()),
            (Link::Connected, n) => (TrayState::Pending, format!("Assent — {n} prompts waiting")),
        };
        if paused {
            tooltip.push_str(" (notifications paused)");
        }
        let prompts = desk
            .pending_newest_first()
            .into_iter()
            .take(MAX_MENU_PROMPTS)
            .map(|approval| {
                let label = untrusted_plain(&approval.evidence.summary, MENU_PROMPT_CHARS);
                let label = if approval.count > 1 {
                    format!("{label} ({})", approval.count)
                } else {
                    label
                };
                (approval.approval_id.clone(), label)
            })
            .collect();
        TrayView {
            state,
            tooltip,
            prompts,
            count,
            paused,
        }
    }

    /// The text beside the icon where the host shows one: the pending count.
    pub fn title(&self) -> Option<String> {
        match self.state {
            TrayState::Pending => Some(self.count.to_string()),
            TrayState::Idle | TrayState::Disconnected => None,
        }
    }
}

fn icon(state: TrayState) -> tauri::Result<Image<'static>> {
    let bytes = match state {
        TrayState::Idle => ICON_IDLE,
        TrayState::Pending => ICON_PENDING,
        TrayState::Disconnected => ICON_DISCONNECTED,
    };
    Image::from_bytes(bytes)
}

fn menu<R: Runtime>(app: &AppHandle<R>, view: &TrayView) -> tauri::Result<Menu<R>> {
    let menu = Menu::new(app)?;
    if view.prompts.is_empty() {
        menu.append(&MenuItem::with_id(
            app,
            "none",
            "Nothing waiting",
            false,
            None::<&str>,
        )?)?;
    }
    for (id, label) in &view.prompts {
        let item_id = MenuCommand::OpenPrompt(id.clone()).id();
        menu.append(&MenuItem::with_id(app, item_id, label, true, None::<&str>)?)?;
    }
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    let pause = Submenu::new(app, "Pause notifications", true)?;
    for (choice, label) in [
        (PauseChoice::HalfHour, "30 minutes"),
        (PauseChoice::Hour, "1 hour"),
        (PauseChoice::UntilResumed, "Until resumed"),
    ] {
        let id = MenuCommand::Pause(choice).id();
        pause.append(&MenuItem::with_id(app, id, label, true, None::<&str>)?)?;
    }
    let resume_id = MenuCommand::Pause(PauseChoice::Resume).id();
    pause.append(&MenuItem::with_id(
        app,
        resume_id,
        "Resume",
        view.paused,
        None::<&str>,
    )?)?;
    menu.append(&pause)?;
    menu.append(&MenuItem::with_id(
        app,
        MenuCommand::Open.id(),
        "Open Assent",
        true,
        None::<&str>,
    )?)?;
    menu.append(&MenuItem::with_id(
        app,
        MenuCommand::Quit.id(),
        "Quit",
        true,
        None::<&str>,
    )?)?;
    Ok(menu)
}

/// Creates the tray (disconnected until the first connect).
pub fn create<R: Runtime>(
    app: &AppHandle<R>,
    on_command: impl Fn(&AppHandle<R>, MenuCommand) + Send + Sync + 'static,
) -> tauri::Result<()> {
    let view = TrayView::of(&Desk::default(), false);
    TrayIconBuilder::with_id(TRAY_ID)
        .icon(icon(view.state)?)
        .tooltip(&view.tooltip)
        .menu(&menu(app, &view)?)
        .on_menu_event(move |app, event| {
            if let Some(command) = MenuCommand::parse(event.id().as_ref()) {
                on_command(app, command);
            }
        })
        .build(app)?;
    Ok(())
}

/// Draws `view` on the tray, touching only what changed since `shown` (each icon change
/// writes a PNG, each menu change renumbers the exported dbusmenu).
pub fn apply<R: Runtime>(
    app: &AppHandle<R>,
    view: &TrayView,
    shown: Option<&TrayView>,
) -> tauri::Result<()> {
    let Some(tray) = app.tray_by_id(TRAY_ID) else {
        return Ok(());
    };
    if shown.map(|s| s.state) != Some(view.state) {
        tray.set_icon(Some(icon(view.state)?))?;
    }
    if shown.map(|s| &s.tooltip) != Some(&view.tooltip) {
        tray.set_tooltip(Some(&view.tooltip))?;
    }
    if shown.map(TrayView::title) != Some(view.title()) {
        tray.set_title(view.title())?;
    }
    if shown.map(|s| (&s.prompts, s.paused)) != Some((&view.prompts, view.paused)) {
        tray.set_menu(Some(menu(app, view)?))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{approval, at};

    #[test]
    fn icon_state_and_tooltip_follow_the_desk() {
        let mut desk = Desk::default();
        assert_eq!(
            TrayView::of(&desk, false).state,
            TrayState::Disconnected,
            "before connecting"
        );
        desk.link = Link::Connected;
        assert_eq!(
            TrayView::of(&desk, false).state,
            TrayState::Idle,
            "connected, nothing waiting"
        );
        let prompts: Vec<_> = (0..7)
            .map(|n| {
                let mut a = approval(&format!("a{n}"));
                a.created_at = at(n);
                a
            })
            .collect();
        desk.replace(prompts, Vec::new(), Vec::new());
        let view = TrayView::of(&desk, true);
        assert_eq!(view.state, TrayState::Pending, "prompts waiting");
        assert_eq!(
            view.tooltip, "Assent — 7 prompts waiting (notifications paused)",
            "count + pause"
        );
        assert_eq!(
            view.prompts.len(),
            MAX_MENU_PROMPTS,
            "at most five prompts in the menu"
        );
        assert_eq!(
            view.prompts.first().map(|p| p.0.as_str()),
            Some("a6"),
            "newest first"
        );
        desk.link = Link::Disconnected {
            reason: "refused".to_owned(),
        };
        assert_eq!(
            TrayView::of(&desk, false).state,
            TrayState::Disconnected,
            "lost connection shows"
        );
    }

    #[test]
    fn menu_ids_round_trip() {
        for command in [
            MenuCommand::OpenPrompt("ap-1".to_owned()),
            MenuCommand::Pause(PauseChoice::HalfHour),
            MenuCommand::Pause(PauseChoice::Hour),
            MenuCommand::Pause(PauseChoice::UntilResumed),
            MenuCommand::Pause(PauseChoice::Resume),
            MenuCommand::Open,
            MenuCommand::Quit,
        ] {
            assert_eq!(
                MenuCommand::parse(&command.id()),
                Some(command.clone()),
                "{command:?}"
            );
        }
        assert_eq!(
            MenuCommand::parse("none"),
            None,
            "the placeholder does nothing"
        );
    }
}
