//! The tray: icon state (idle, pending with the count, disconnected) and its menu (up to five
//! pending prompts, pause, open, quit). [`TrayView`] is the pure part; [`Tray`] shows it as a
//! StatusNotifierItem with a `com.canonical.dbusmenu` menu, over D-Bus alone.

use ksni::TrayMethods;
use tokio::sync::mpsc;

use crate::desk::{Desk, Link};
use crate::pause::PauseChoice;
use crate::text::untrusted_plain;

pub const TRAY_ID: &str = "assent";
/// Prompts listed in the menu.
pub const MAX_MENU_PROMPTS: usize = 5;
const MENU_PROMPT_CHARS: usize = 60;

const ICON_IDLE: &[u8] = include_bytes!("../../../icons/tray-idle.png");
const ICON_PENDING: &[u8] = include_bytes!("../../../icons/tray-pending.png");
const ICON_DISCONNECTED: &[u8] = include_bytes!("../../../icons/tray-disconnected.png");

/// What a tray menu click means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuCommand {
    OpenPrompt(String),
    Pause(PauseChoice),
    Open,
    Quit,
    /// "Keep Assent in the tray" under Quit: nothing happens, the desk stays.
    Stay,
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
    /// Requests waiting on those prompts (a batch holds several): whose agents a Quit leaves
    /// without an answer.
    pub waiting: u32,
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
        let waiting = desk
            .pending_newest_first()
            .iter()
            .map(|approval| approval.count.max(1))
            .sum();
        TrayView {
            state,
            tooltip,
            prompts,
            count,
            paused,
            waiting,
        }
    }

    /// What Quit says while requests wait, or `None` (a plain Quit). With the embedded service
    /// quitting stops it, so the agents asking now are refused; a remote service keeps them
    /// waiting for another desk.
    pub fn quit_warning(&self, embedded: bool) -> Option<String> {
        let n = self.waiting;
        if n == 0 {
            return None;
        }
        let requests = if n == 1 {
            "1 waiting request".to_owned()
        } else {
            format!("{n} waiting requests")
        };
        Some(if embedded {
            format!("Quit — {requests} will be refused")
        } else {
            format!("Quit — {requests} lose this desk")
        })
    }

    /// The text beside the icon where the host shows one: the pending count.
    pub fn title(&self) -> Option<String> {
        match self.state {
            TrayState::Pending => Some(self.count.to_string()),
            TrayState::Idle | TrayState::Disconnected => None,
        }
    }
}

/// One icon as the host gets it: ARGB32 pixels, and the PNG file (written under the user's
/// cache dir) named by `IconName` for hosts that prefer a file.
#[derive(Clone, Default)]
struct Drawn {
    pixmap: Vec<ksni::Icon>,
    file: String,
}

/// The tray's icons, decoded once.
struct Icons {
    idle: Drawn,
    pending: Drawn,
    disconnected: Drawn,
}

impl Icons {
    fn of(&self, state: TrayState) -> &Drawn {
        match state {
            TrayState::Idle => &self.idle,
            TrayState::Pending => &self.pending,
            TrayState::Disconnected => &self.disconnected,
        }
    }
}

/// PNG (RGBA, 8 bit) → the StatusNotifierItem pixmap (ARGB32, network byte order).
fn pixmap(png_bytes: &[u8]) -> Vec<ksni::Icon> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let Ok(mut reader) = decoder.read_info() else {
        return Vec::new();
    };
    let Some(size) = reader.output_buffer_size() else {
        return Vec::new();
    };
    let mut buffer = vec![0; size];
    let Ok(info) = reader.next_frame(&mut buffer) else {
        return Vec::new();
    };
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Vec::new();
    }
    buffer.truncate(info.buffer_size());
    let mut data = Vec::with_capacity(buffer.len());
    for rgba in buffer.chunks_exact(4) {
        if let [r, g, b, a] = *rgba {
            data.extend_from_slice(&[a, r, g, b]);
        }
    }
    let (Ok(width), Ok(height)) = (i32::try_from(info.width), i32::try_from(info.height)) else {
        return Vec::new();
    };
    vec![ksni::Icon {
        width,
        height,
        data,
    }]
}

impl Icons {
    fn load() -> Icons {
        let dir = dirs::cache_dir().map(|dir| dir.join("assent").join("tray"));
        let draw = |name: &str, bytes: &[u8]| Drawn {
            pixmap: pixmap(bytes),
            file: dir
                .as_deref()
                .and_then(|dir| write_icon(dir, name, bytes))
                .unwrap_or_default(),
        };
        Icons {
            idle: draw("tray-idle.png", ICON_IDLE),
            pending: draw("tray-pending.png", ICON_PENDING),
            disconnected: draw("tray-disconnected.png", ICON_DISCONNECTED),
        }
    }
}

/// Writes the icon file (unless it is there already); its path.
fn write_icon(dir: &std::path::Path, name: &str, bytes: &[u8]) -> Option<String> {
    let path = dir.join(name);
    if std::fs::read(&path).ok().as_deref() != Some(bytes) {
        let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, bytes));
        if let Err(err) = written {
            tracing::debug!(%err, "cannot write the tray icon file; pixels only");
            return None;
        }
    }
    path.to_str().map(str::to_owned)
}

/// The StatusNotifierItem (ksni: D-Bus only, no GTK in this process).
struct Item {
    view: TrayView,
    icons: Icons,
    commands: mpsc::UnboundedSender<MenuCommand>,
    /// Whether the desk runs the service itself (quitting then stops it).
    embedded: bool,
}

impl Item {
    fn send(&self, command: MenuCommand) {
        let _ = self.commands.send(command);
    }
}

fn entry(label: &str, command: MenuCommand, enabled: bool) -> ksni::MenuItem<Item> {
    ksni::menu::StandardItem {
        label: label.replace('_', "__"),
        enabled,
        activate: Box::new(move |item: &mut Item| item.send(command.clone())),
        ..Default::default()
    }
    .into()
}

impl ksni::Tray for Item {
    fn id(&self) -> String {
        TRAY_ID.to_owned()
    }

    fn title(&self) -> String {
        match self.view.title() {
            Some(count) => format!("Assent ({count})"),
            None => "Assent".to_owned(),
        }
    }

    fn category(&self) -> ksni::Category {
        ksni::Category::ApplicationStatus
    }

    fn status(&self) -> ksni::Status {
        ksni::Status::Active
    }

    fn icon_name(&self) -> String {
        self.icons.of(self.view.state).file.clone()
    }

    fn icon_pixmap(&self) -> Vec<ksni::Icon> {
        self.icons.of(self.view.state).pixmap.clone()
    }

    fn tool_tip(&self) -> ksni::ToolTip {
        ksni::ToolTip {
            title: self.view.tooltip.clone(),
            ..Default::default()
        }
    }

    /// A left click opens the window.
    fn activate(&mut self, _x: i32, _y: i32) {
        self.send(MenuCommand::Open);
    }

    fn menu(&self) -> Vec<ksni::MenuItem<Self>> {
        let mut menu = Vec::new();
        if self.view.prompts.is_empty() {
            menu.push(entry("Nothing waiting", MenuCommand::Open, false));
        }
        for (id, label) in &self.view.prompts {
            menu.push(entry(label, MenuCommand::OpenPrompt(id.clone()), true));
        }
        menu.push(ksni::MenuItem::Separator);
        let mut pause: Vec<ksni::MenuItem<Self>> = [
            (PauseChoice::HalfHour, "30 minutes"),
            (PauseChoice::Hour, "1 hour"),
            (PauseChoice::UntilResumed, "Until resumed"),
        ]
        .into_iter()
        .map(|(choice, label)| entry(label, MenuCommand::Pause(choice), true))
        .collect();
        pause.push(entry(
            "Resume",
            MenuCommand::Pause(PauseChoice::Resume),
            self.view.paused,
        ));
        menu.push(
            ksni::menu::SubMenu {
                label: "Pause notifications".to_owned(),
                submenu: pause,
                ..Default::default()
            }
            .into(),
        );
        menu.push(entry("Open Assent", MenuCommand::Open, true));
        match self.view.quit_warning(self.embedded) {
            None => menu.push(entry("Quit", MenuCommand::Quit, true)),
            Some(warning) => menu.push(
                ksni::menu::SubMenu {
                    label: warning,
                    submenu: vec![
                        entry("Keep Assent in the tray", MenuCommand::Stay, true),
                        entry(
                            if self.embedded {
                                "Quit and refuse them"
                            } else {
                                "Quit anyway"
                            },
                            MenuCommand::Quit,
                            true,
                        ),
                    ],
                    ..Default::default()
                }
                .into(),
            ),
        }
        menu
    }
}

/// The running tray.
pub struct Tray(ksni::Handle<Item>);

impl Tray {
    /// Draws `view` (the host re-reads what changed).
    pub async fn show(&self, view: TrayView) {
        if self.0.update(move |item| item.view = view).await.is_none() {
            tracing::warn!("the tray is gone");
        }
    }
}

/// Registers the tray item (disconnected until the first connect). A desktop without a
/// StatusNotifierWatcher yet (a panel still starting) gets the item once one appears.
pub async fn spawn(commands: mpsc::UnboundedSender<MenuCommand>, embedded: bool) -> Option<Tray> {
    let item = Item {
        view: TrayView::of(&Desk::default(), false),
        icons: Icons::load(),
        commands,
        embedded,
    };
    match item.assume_sni_available(true).spawn().await {
        Ok(handle) => Some(Tray(handle)),
        Err(err) => {
            tracing::warn!(%err, "no tray: the desk works through notifications and the window");
            None
        }
    }
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
    fn icons_become_argb_pixmaps() {
        let icons = pixmap(ICON_PENDING);
        let icon = icons.first().expect("the pending icon decodes");
        let pixels = usize::try_from(icon.width * icon.height).expect("size");
        assert_eq!(icon.data.len(), pixels * 4, "ARGB32: four bytes a pixel");
        // The PNG's first pixel, RGBA → ARGB: the host draws these bytes as they are.
        let mut decoder = png::Decoder::new(std::io::Cursor::new(ICON_PENDING));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().expect("png");
        let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
        reader.next_frame(&mut buffer).expect("frame");
        let centre = (pixels / 2 + usize::try_from(icon.width).expect("w") / 2) * 4;
        assert_eq!(
            icon.data.get(centre..centre + 4),
            Some(
                &[
                    buffer[centre + 3],
                    buffer[centre],
                    buffer[centre + 1],
                    buffer[centre + 2]
                ][..]
            ),
            "alpha first, then red, green, blue"
        );
        assert!(
            pixmap(b"not a png").is_empty(),
            "a broken icon draws nothing, not garbage"
        );
    }

    #[test]
    fn menu_labels_keep_underscores_literal() {
        let (sender, _receiver) = mpsc::unbounded_channel();
        let mut desk = Desk::default();
        desk.link = Link::Connected;
        let mut prompt = approval("a_1");
        prompt.evidence.summary = "run make_all".to_owned();
        desk.replace(vec![prompt], Vec::new(), Vec::new());
        let item = Item {
            view: TrayView::of(&desk, false),
            icons: Icons {
                idle: Drawn::default(),
                pending: Drawn::default(),
                disconnected: Drawn::default(),
            },
            commands: sender,
            embedded: true,
        };
        let first = ksni::Tray::menu(&item).into_iter().next();
        match first {
            Some(ksni::MenuItem::Standard(entry)) => assert_eq!(
                entry.label, "run make__all",
                "dbusmenu reads one underscore as a mnemonic: agent text must be doubled"
            ),
            _ => panic!("the first entry is the prompt"),
        }
    }

    #[test]
    fn quit_says_how_many_waiting_agents_it_refuses() {
        let mut desk = Desk::default();
        desk.link = Link::Connected;
        assert_eq!(
            TrayView::of(&desk, false).quit_warning(true),
            None,
            "nothing waits: a plain Quit"
        );
        let mut batch = approval("a1");
        batch.count = 2;
        desk.replace(vec![batch, approval("a2")], Vec::new(), Vec::new());
        let view = TrayView::of(&desk, false);
        assert_eq!(
            view.quit_warning(true).as_deref(),
            Some("Quit — 3 waiting requests will be refused"),
            "the embedded service stops with the desk: every waiting request is refused"
        );
        assert_eq!(
            view.quit_warning(false).as_deref(),
            Some("Quit — 3 waiting requests lose this desk"),
            "a remote service keeps them for another desk"
        );
        let (sender, _receiver) = mpsc::unbounded_channel();
        let item = Item {
            view,
            icons: Icons {
                idle: Drawn::default(),
                pending: Drawn::default(),
                disconnected: Drawn::default(),
            },
            commands: sender,
            embedded: true,
        };
        let last = ksni::Tray::menu(&item).into_iter().last();
        match last {
            Some(ksni::MenuItem::SubMenu(quit)) => {
                let labels: Vec<String> = quit
                    .submenu
                    .iter()
                    .filter_map(|item| match item {
                        ksni::MenuItem::Standard(entry) => Some(entry.label.clone()),
                        _ => None,
                    })
                    .collect();
                assert_eq!(
                    labels,
                    ["Keep Assent in the tray", "Quit and refuse them"],
                    "Quit offers to keep the desk in the tray before refusing anyone"
                );
            }
            _ => panic!("with requests waiting, Quit is a submenu that warns"),
        }
    }
}
