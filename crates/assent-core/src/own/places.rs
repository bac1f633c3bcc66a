//! Assent's own places on the machine, and the agents' hook configuration that keeps Assent in
//! the loop: the policy **blocks** agents from them (never asks — a person approving "once" a
//! read of the approver token would have handed over the desk).
//!
//! - Assent's data dir (the tokens and the database), its config dir (desktop settings), its
//!   state dir (logs) and the policy file the service runs with: never read, written, copied
//!   or deleted; a delete of a directory holding one, or a link to it, is blocked too. So is
//!   the audit's checkpoint key when the service keeps it outside the data dir (`--audit-key`). A file
//!   a command opens named `approver.token`, `requester.token` or `assent.db` is Assent's
//!   wherever it is (a data dir nobody named, or one reached under another name).
//! - Hook configuration — `settings*.json` in any `.claude`, `.gemini` or `.copilot` directory
//!   (and `.github/copilot`), `config.toml` and `hooks.json` in any `.codex` or `.cursor`
//!   directory, every file in a hooks or plugin directory (`.github/hooks`, `.copilot/hooks`,
//!   opencode's `plugin`/`plugins`), the same names in the agents' configuration dirs the caller
//!   names (`$CODEX_HOME`, `$CLAUDE_CONFIG_DIR`, `$COPILOT_HOME` …) and the system-wide settings
//!   (Claude Code's managed settings, `/etc/gemini-cli`, `/etc/cursor`): never written, moved,
//!   copied over or deleted (nor the directory itself). Reading it stays as any other file (it
//!   holds no secret).
//!
//! Paths may hold shell globs (`~/.local/share/assent/*.token`, `.cl*/settings.json`): a glob
//! is judged by whether it *can* name a protected path, part by part. The core does no I/O:
//! the caller says where these places are (see [`crate::Environment`]); the defaults follow the
//! XDG layout under the home directory.

use crate::classify::verdict::{Access, Facts, Verdict};
use crate::paths::{display, is_within, normalize};
use crate::types::{CommandRisk, PathRisk};

/// What one of Assent's own places holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OwnPlace {
    /// The tokens and the database (`assent.db`, `requester.token`, `approver.token`).
    Data,
    /// The desktop's settings.
    Config,
    /// Logs and state.
    State,
    /// The policy file the service was started with.
    Policy,
    /// The key signing the audit's checkpoints, where `--audit-key` puts it (outside the data
    /// dir).
    AuditKey,
}

impl OwnPlace {
    fn reason(self, shown: &str) -> String {
        match self {
            OwnPlace::Data => format!(
                "Assent's own credentials and database are never read or changed by an agent: {shown}"
            ),
            OwnPlace::Config => {
                format!("Assent's own settings are never read or changed by an agent: {shown}")
            }
            OwnPlace::State => format!(
                "Assent's own logs and state are never read or changed by an agent: {shown}"
            ),
            OwnPlace::Policy => format!(
                "the policy Assent runs with is never read or changed by an agent: {shown}"
            ),
            OwnPlace::AuditKey => format!(
                "the key that signs Assent's audit is never read or changed by an agent: {shown}"
            ),
        }
    }

    pub(crate) fn holding(self) -> &'static str {
        match self {
            OwnPlace::Data => "Assent's own credentials and database",
            OwnPlace::Config => "Assent's own settings",
            OwnPlace::State => "Assent's own logs and state",
            OwnPlace::Policy => "the policy Assent runs with",
            OwnPlace::AuditKey => "the key that signs Assent's audit",
        }
    }
}

/// The rule that protects Assent's own files.
pub(crate) const FILES_RULE: &str = "block.assent_files";
/// The rule that protects the agents' hook configuration.
pub(crate) const HOOKS_RULE: &str = "block.hook_config";

/// Files whose names alone say they are Assent's credentials or database.
pub(crate) const OWN_FILE_NAMES: &[&str] = &[
    "approver.token",
    "requester.token",
    "assent.db",
    "assent.db-wal",
    "assent.db-shm",
];

/// Names of the files in an agent's configuration directory that hold its hooks.
const HOOK_FILES: &[&str] = &[
    "settings.json",
    "settings.local.json",
    "managed-settings.json",
    "config.toml",
    "managed_config.toml",
    "hooks.json",
];
/// Directories holding hook configuration wherever they are (a repository's or the home's):
/// Claude Code, Codex, Gemini CLI (`settings.json`), Cursor (`hooks.json`), Copilot CLI's home
/// (`settings.json`, whose `hooks` and `disableAllHooks` decide its hooks).
const HOOK_DIR_NAMES: &[&str] = &[".claude", ".codex", ".gemini", ".cursor", ".copilot"];
/// Directories, by their parent's name and their own, whose files are all hooks: Copilot
/// CLI's `hooks/*.json` (a repository's and its home's) and a project's opencode plugin
/// directories, which it loads whatever the file is called. (The user's
/// `~/.config/opencode/plugin` is a place under the home, [`USER_HOOK_FILE_DIRS`]: a directory
/// merely named `opencode/plugin` may be anyone's source tree.)
const HOOK_FILE_DIRS: &[(&str, &str)] = &[
    (".github", "hooks"),
    (".copilot", "hooks"),
    (".opencode", "plugin"),
    (".opencode", "plugins"),
];
/// The user's opencode plugin directories (XDG default; `$XDG_CONFIG_HOME` is the caller's).
const USER_HOOK_FILE_DIRS: &[&str] = &["~/.config/opencode/plugin", "~/.config/opencode/plugins"];
/// Directories, by their parent's name and their own, holding settings that hold hooks:
/// a repository's Copilot CLI settings (`.github/copilot/settings*.json`).
const NESTED_HOOK_DIRS: &[(&str, &str)] = &[(".github", "copilot")];
/// System-wide agent configuration (Claude Code's managed settings, Codex's system config,
/// Gemini CLI's and Cursor's system settings).
const SYSTEM_HOOK_DIRS: &[&str] = &[
    "/etc/claude-code",
    "/Library/Application Support/ClaudeCode",
    "/etc/codex",
    "/etc/gemini-cli",
    "/etc/cursor",
    "/Library/Application Support/Cursor",
];

/// Where Assent keeps its own files on this machine, and where agents keep their hooks.
///
/// Built by [`crate::Environment`]: the XDG defaults under the home directory always, plus
/// every place the caller adds (the service's `--data-dir`, its `--policy` file,
/// `$XDG_DATA_HOME/assent`, `$CODEX_HOME`, …). Adding never removes a default: another Assent
/// (the desktop's embedded service) may keep its tokens there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnPlaces {
    home: String,
    /// Absolute, normalised.
    places: Vec<(OwnPlace, String)>,
    /// Agents' configuration directories besides any `.claude`/`.codex`: absolute, normalised.
    hook_dirs: Vec<String>,
    /// Directories whose every file is a hook (`$COPILOT_HOME/hooks`): absolute, normalised.
    hook_file_dirs: Vec<String>,
    /// Ports the service answers on: its approver routes there are blocked on any host.
    ports: Vec<u16>,
    /// Host names the service answers to (a team's `--public-url`), lower case: its approver
    /// routes there are blocked on any port.
    hosts: Vec<String>,
    /// The binaries the hooks run, besides any `assent` in a `bin` directory: absolute,
    /// normalised.
    gate_binaries: Vec<String>,
}

impl OwnPlaces {
    /// The defaults under `home`: `~/.local/share/assent`, `~/.config/assent`,
    /// `~/.local/state/assent`, and the system-wide agent configuration.
    pub fn under_home(home: &str) -> Self {
        let home = normalize(home, "/", "/");
        let mut own = OwnPlaces {
            places: Vec::new(),
            hook_dirs: SYSTEM_HOOK_DIRS.iter().map(|d| (*d).to_owned()).collect(),
            hook_file_dirs: Vec::new(),
            ports: Vec::new(),
            hosts: Vec::new(),
            gate_binaries: Vec::new(),
            home,
        };
        own.add(OwnPlace::Data, "~/.local/share/assent");
        own.add(OwnPlace::Config, "~/.config/assent");
        own.add(OwnPlace::State, "~/.local/state/assent");
        for dir in USER_HOOK_FILE_DIRS {
            own.add_hook_file_dir(dir);
        }
        own
    }

    /// Also protects `path` (absolute, `~` allowed) as `place`.
    pub fn add(&mut self, place: OwnPlace, path: &str) {
        let path = normalize(path, "/", &self.home);
        if path != "/" && !self.places.iter().any(|(_, p)| *p == path) {
            self.places.push((place, path));
        }
    }

    /// Also protects the hook files in an agent's configuration directory `dir`.
    pub fn add_hook_dir(&mut self, dir: &str) {
        let dir = normalize(dir, "/", &self.home);
        if dir != "/" && !self.hook_dirs.contains(&dir) {
            self.hook_dirs.push(dir);
        }
    }

    /// Also protects every file in `dir`, a directory an agent loads hooks or plugins from
    /// whatever they are called (`$COPILOT_HOME/hooks`, `$XDG_CONFIG_HOME/opencode/plugin`).
    pub fn add_hook_file_dir(&mut self, dir: &str) {
        let dir = normalize(dir, "/", &self.home);
        if dir != "/" && !self.hook_file_dirs.contains(&dir) {
            self.hook_file_dirs.push(dir);
        }
    }

    /// Also treats `port` as the service's: its approver routes there are Assent's, whatever
    /// the host is called.
    pub fn add_port(&mut self, port: u16) {
        if !self.ports.contains(&port) {
            self.ports.push(port);
        }
    }

    /// Also treats `host` as the service's (a team URL's host): its approver routes there are
    /// Assent's, whatever the port (a proxy may answer on 443 for the service's port).
    pub fn add_host(&mut self, host: &str) {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        if !host.is_empty() && !self.hosts.contains(&host) {
            self.hosts.push(host);
        }
    }

    /// Also protects `path` (absolute, `~` allowed) as a binary the agents' hooks run (see
    /// [`crate::own::binary`]).
    pub fn add_gate_binary(&mut self, path: &str) {
        let path = normalize(path, "/", &self.home);
        if path != "/" && !self.gate_binaries.contains(&path) {
            self.gate_binaries.push(path);
        }
    }

    pub(crate) fn gate_binaries(&self) -> &[String] {
        &self.gate_binaries
    }

    pub fn places(&self) -> impl Iterator<Item = (OwnPlace, &str)> {
        self.places.iter().map(|(k, p)| (*k, p.as_str()))
    }

    pub fn hook_dirs(&self) -> impl Iterator<Item = &str> {
        self.hook_dirs
            .iter()
            .chain(&self.hook_file_dirs)
            .map(String::as_str)
    }

    pub(crate) fn ports(&self) -> &[u16] {
        &self.ports
    }

    pub(crate) fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The place `path` (absolute, normalised, globs allowed) can name, else one it holds
    /// (`Ancestor`).
    pub(crate) fn place_of(&self, path: &str) -> Option<(OwnPlace, Reach)> {
        let glob = has_glob(path);
        let mut holds = None;
        for (kind, place) in &self.places {
            match reach_as(path, glob, place) {
                Reach::Within => return Some((*kind, Reach::Within)),
                Reach::Ancestor => holds = holds.or(Some((*kind, Reach::Ancestor))),
                Reach::No => {}
            }
        }
        holds
    }

    /// Whether `path` can name a hook file or an agent's configuration directory itself.
    pub(crate) fn is_hook_config(&self, path: &str) -> bool {
        let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
        let parent = if parent.is_empty() { "/" } else { parent };
        let (grandparent, parent_name) = parent.rsplit_once('/').unwrap_or(("", parent));
        let grandparent_name = grandparent.rsplit('/').next().unwrap_or_default();
        let nested = |pairs: &[(&str, &str)], outer: &str, inner: &str| {
            pairs
                .iter()
                .any(|(o, i)| part_names(outer, o) && part_names(inner, i))
        };
        let in_hook_dir = HOOK_DIR_NAMES.iter().any(|d| part_names(parent_name, d))
            || nested(NESTED_HOOK_DIRS, grandparent_name, parent_name)
            || self.hook_dirs.iter().any(|d| same_place(parent, d));
        let in_hook_file_dir = nested(HOOK_FILE_DIRS, grandparent_name, parent_name)
            || self.hook_file_dirs.iter().any(|d| same_place(parent, d));
        let is_hook_dir = HOOK_DIR_NAMES.iter().any(|d| part_names(name, d))
            || nested(HOOK_FILE_DIRS, parent_name, name)
            || self
                .hook_dirs
                .iter()
                .chain(&self.hook_file_dirs)
                .any(|d| same_place(path, d));
        (in_hook_dir && names_hook_file(name)) || in_hook_file_dir || is_hook_dir
    }

    /// Whether deleting `path` deletes an agent's configuration directory named by the caller.
    fn holds_hook_dir(&self, path: &str) -> bool {
        let glob = has_glob(path);
        self.hook_dirs
            .iter()
            .chain(&self.hook_file_dirs)
            .any(|d| reach_as(path, glob, d) == Reach::Ancestor)
    }

    /// The block for touching `path` this way, if it is one of Assent's own places or
    /// changes hook configuration.
    pub(crate) fn check(
        &self,
        path: &str,
        access: Access,
        root: &str,
        facts: &mut Facts,
    ) -> Option<Verdict> {
        let shown = |p: &str| self.shown(p, root);
        match self.place_of(path) {
            Some((place, Reach::Within)) => {
                facts.path(PathRisk::Sensitive);
                facts.secret = Some(shown(path));
                if access != Access::Read {
                    facts.command(CommandRisk::Mutation);
                }
                return Some(Verdict::block(FILES_RULE, place.reason(&shown(path))));
            }
            Some((place, Reach::Ancestor)) if access == Access::Delete => {
                facts.path(PathRisk::Sensitive);
                facts.command(CommandRisk::Mutation);
                return Some(Verdict::block(
                    FILES_RULE,
                    format!("deletes {}, which holds {}", shown(path), place.holding()),
                ));
            }
            _ => {}
        }
        let changes = access != Access::Read;
        let deletes_hooks = access == Access::Delete && self.holds_hook_dir(path);
        if (changes && self.is_hook_config(path)) || deletes_hooks {
            facts.path(PathRisk::Security);
            facts.command(CommandRisk::Mutation);
            return Some(hook_verdict(&shown(path)));
        }
        None
    }

    /// The block for opening `path` when its name alone says it is Assent's credentials or
    /// database: a data dir nobody told the policy about, or one reached under another name
    /// (through a link made in the same line, after `pushd`).
    pub(crate) fn check_file_name(
        &self,
        path: &str,
        root: &str,
        facts: &mut Facts,
    ) -> Option<Verdict> {
        let name = path.rsplit('/').next().unwrap_or(path);
        if !OWN_FILE_NAMES.contains(&name) {
            return None;
        }
        let shown = self.shown(path, root);
        facts.path(PathRisk::Sensitive);
        facts.secret = Some(shown.clone());
        Some(Verdict::block(FILES_RULE, OwnPlace::Data.reason(&shown)))
    }

    /// The block for making a link to `path` when it is a directory above one of Assent's
    /// places: the link would reach them under another name.
    pub(crate) fn check_link_target(&self, path: &str, root: &str) -> Option<Verdict> {
        match self.place_of(path) {
            Some((place, Reach::Ancestor)) => Some(Verdict::block(
                FILES_RULE,
                format!(
                    "links to {}, which holds {}",
                    self.shown(path, root),
                    place.holding()
                ),
            )),
            _ => None,
        }
    }

    /// `path` for a person: `~/…` under home.
    pub(crate) fn shown(&self, path: &str, root: &str) -> String {
        display(path, root, &self.home)
    }
}

fn hook_verdict(shown: &str) -> Verdict {
    Verdict::block(HOOKS_RULE, hook_reason(shown))
}

pub(crate) fn hook_reason(shown: &str) -> String {
    format!(
        "the agent's hook configuration that keeps Assent in the loop is never changed by an agent: {shown}"
    )
}

/// How a path stands to a protected place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    No,
    /// The place itself or something in it (or a glob that can name one).
    Within,
    /// A directory above the place.
    Ancestor,
}

/// How `path` (which may hold globs) stands to `place` (literal), both absolute and normalised.
pub(crate) fn reach(path: &str, place: &str) -> Reach {
    reach_as(path, has_glob(path), place)
}

/// [`reach`] when whether `path` holds a glob is known (`glob`): a path is checked against
/// every place, the glob test is done once.
fn reach_as(path: &str, glob: bool, place: &str) -> Reach {
    if !glob {
        return if is_within(path, place) {
            Reach::Within
        } else if is_within(place, path) {
            Reach::Ancestor
        } else {
            Reach::No
        };
    }
    let mut written = path.split('/').filter(|p| !p.is_empty());
    for part in place.split('/').filter(|p| !p.is_empty()) {
        match written.next() {
            None => return Reach::Ancestor,
            // `**` can stand for any number of directories (none hidden, as `*`).
            Some("**") if !part.starts_with('.') => return Reach::Within,
            Some(w) if part_names(w, part) => {}
            Some(_) => return Reach::No,
        }
    }
    Reach::Within
}

/// `path` and `place` name the same directory (globs in `path` allowed).
fn same_place(path: &str, place: &str) -> bool {
    if !has_glob(path) {
        return path == place;
    }
    let count = |p: &str| p.split('/').filter(|s| !s.is_empty()).count();
    reach(path, place) == Reach::Within && count(path) == count(place)
}

/// Whether a written file name can be one of the hook files.
fn names_hook_file(name: &str) -> bool {
    if has_glob(name) {
        return HOOK_FILES.iter().any(|f| part_names(name, f));
    }
    (name.starts_with("settings") && name.ends_with(".json")) || HOOK_FILES.contains(&name)
}

/// Whether a written path part (`*`, `?`, `[…]`, `{a,b}` allowed) can name `literal`, as the
/// shell expands it: a hidden name only by a pattern that starts with `.` (`~/*` is not
/// `~/.claude`). A glob that does not compile is what the shell does with it: taken as written.
pub(crate) fn part_names(written: &str, literal: &str) -> bool {
    if !has_glob(written) {
        return written == literal;
    }
    if literal.starts_with('.') && !written.starts_with(['.', '{']) {
        return false;
    }
    globset::GlobBuilder::new(written)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_or(written == literal, |g| {
            g.compile_matcher().is_match(literal)
        })
}

pub(crate) fn has_glob(text: &str) -> bool {
    // Bytes, not chars: the four are ASCII, never part of a multi-byte character (and a
    // `char` pattern decodes every character; this runs for every path a command names).
    text.bytes().any(|b| matches!(b, b'*' | b'?' | b'[' | b'{'))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn globs_are_judged_by_what_they_can_name() {
        let place = "/h/.local/share/assent";
        let cases = [
            ("/h/.local/share/assent/approver.token", Reach::Within),
            ("/h/.local/share/assent/*.token", Reach::Within),
            ("/h/.local/share/as*/approver.token", Reach::Within),
            ("/h/.local/*/{assent,x}", Reach::Within),
            ("/h/.local/**/x", Reach::Within),
            ("/h/**/x", Reach::No),
            ("/h/*", Reach::No),
            ("/h/.*", Reach::Ancestor),
            ("/h/.local/*", Reach::Ancestor),
            ("/h/.local", Reach::Ancestor),
            ("/h/.local/share/assentx", Reach::No),
            ("/h/.local/share/b*/x", Reach::No),
            ("/h/src/*.rs", Reach::No),
        ];
        for (path, want) in cases {
            assert_eq!(reach(path, place), want, "{path} against {place}");
        }
    }

    #[test]
    fn hook_files_are_named_by_directory_and_file() {
        let mut own = OwnPlaces::under_home("/h");
        own.add_hook_dir("/opt/codex-home");
        own.add_hook_file_dir("/opt/copilot-home/hooks");
        let hooks = [
            "/h/.claude/settings.json",
            "/h/.claude/settings.local.json",
            "/r/.claude/settings.json",
            "/r/.claude/*.json",
            "/r/.cl*/settings.json",
            "/r/.codex/config.toml",
            "/r/.codex/hooks.json",
            "/opt/codex-home/config.toml",
            "/etc/claude-code/managed-settings.json",
            "/r/.claude",
            "/opt/codex-home",
            "/h/.gemini/settings.json",
            "/r/.gemini/settings.json",
            "/etc/gemini-cli/settings.json",
            "/r/.cursor/hooks.json",
            "/h/.cursor/hooks.json",
            "/r/.github/hooks/assent.json",
            "/r/.github/hooks/*.json",
            "/r/.github/hooks",
            "/r/.github/copilot/settings.local.json",
            "/h/.copilot/hooks/assent.json",
            "/h/.copilot/settings.json",
            "/r/.opencode/plugin/assent.js",
            "/h/.config/opencode/plugin/assent.js",
            "/h/.config/opencode/plugins/other.ts",
            "/opt/copilot-home/hooks/assent.json",
        ];
        for path in hooks {
            assert!(own.is_hook_config(path), "{path} holds hooks");
        }
        let others = [
            "/r/.claude/agents/reviewer.md",
            "/r/settings.json",
            "/r/.codex/prompts/x.md",
            "/opt/codex-home/sessions/a.jsonl",
            "/r/src/config.toml",
            "/r/.github/workflows/ci.yml",
            "/r/.cursor/rules/style.mdc",
            "/src/opencode/plugin/index.ts",
            "/r/.gemini/commands/x.toml",
        ];
        for path in others {
            assert!(!own.is_hook_config(path), "{path} holds no hooks");
        }
    }
}
