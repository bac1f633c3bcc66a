//! Persistence and privilege: what makes code run later without anyone asking (a shell's
//! start-up file, a crontab, a service or login item) or with more rights than the agent has
//! (sudoers, a setuid bit, file capabilities, an admin group). Blocks: a person approving
//! "once" would approve every later run of it.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::paths::{below_home, display, is_within};
use crate::types::{CommandRisk, RiskLevel};

pub(crate) const RULE: &str = "block.persistence";

/// What a protected place does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    StartUp,
    Schedule,
    Service,
    Privilege,
}

impl Kind {
    fn reason(self, shown: &str) -> String {
        match self {
            Kind::StartUp => format!(
                "writes {shown}, a start-up file: what it holds runs in every later shell or session"
            ),
            Kind::Schedule => format!(
                "writes {shown}, a scheduled job: it runs later, with no agent or person asking"
            ),
            Kind::Service => {
                format!("writes {shown}, which starts a program by itself at boot or login")
            }
            Kind::Privilege => format!(
                "writes {shown}, which grants privileges (sudo rights, accounts, preloaded libraries)"
            ),
        }
    }
}

/// Below any user's home: a file (`.bashrc`) or a directory (`.config/autostart/`).
const IN_HOME: &[(&str, Kind)] = &[
    (".bashrc", Kind::StartUp),
    (".bash_profile", Kind::StartUp),
    (".bash_login", Kind::StartUp),
    (".bash_logout", Kind::StartUp),
    (".profile", Kind::StartUp),
    (".zshrc", Kind::StartUp),
    (".zshenv", Kind::StartUp),
    (".zprofile", Kind::StartUp),
    (".zlogin", Kind::StartUp),
    (".zlogout", Kind::StartUp),
    (".kshrc", Kind::StartUp),
    (".mkshrc", Kind::StartUp),
    (".cshrc", Kind::StartUp),
    (".tcshrc", Kind::StartUp),
    (".login", Kind::StartUp),
    (".xprofile", Kind::StartUp),
    (".xinitrc", Kind::StartUp),
    (".xsessionrc", Kind::StartUp),
    (".pam_environment", Kind::StartUp),
    (".ssh/rc", Kind::StartUp),
    (".config/fish/config.fish", Kind::StartUp),
    (".config/fish/conf.d/", Kind::StartUp),
    (".config/environment.d/", Kind::StartUp),
    (".config/autostart/", Kind::Service),
    (".config/systemd/user/", Kind::Service),
    ("Library/LaunchAgents/", Kind::Service),
];

/// System-wide places.
const SYSTEM: &[(&str, Kind)] = &[
    ("/etc/profile", Kind::StartUp),
    ("/etc/profile.d/", Kind::StartUp),
    ("/etc/bash.bashrc", Kind::StartUp),
    ("/etc/bashrc", Kind::StartUp),
    ("/etc/zshrc", Kind::StartUp),
    ("/etc/zshenv", Kind::StartUp),
    ("/etc/zprofile", Kind::StartUp),
    ("/etc/zsh/", Kind::StartUp),
    ("/etc/environment", Kind::StartUp),
    ("/etc/crontab", Kind::Schedule),
    ("/etc/anacrontab", Kind::Schedule),
    ("/etc/cron.d/", Kind::Schedule),
    ("/etc/cron.hourly/", Kind::Schedule),
    ("/etc/cron.daily/", Kind::Schedule),
    ("/etc/cron.weekly/", Kind::Schedule),
    ("/etc/cron.monthly/", Kind::Schedule),
    ("/var/spool/cron/", Kind::Schedule),
    ("/usr/lib/cron/tabs/", Kind::Schedule),
    ("/etc/rc.local", Kind::Service),
    ("/etc/init.d/", Kind::Service),
    ("/etc/systemd/", Kind::Service),
    ("/lib/systemd/system/", Kind::Service),
    ("/usr/lib/systemd/system/", Kind::Service),
    ("/etc/xdg/autostart/", Kind::Service),
    ("/Library/LaunchAgents/", Kind::Service),
    ("/Library/LaunchDaemons/", Kind::Service),
    ("/etc/sudoers", Kind::Privilege),
    ("/etc/sudoers.d/", Kind::Privilege),
    ("/etc/doas.conf", Kind::Privilege),
    ("/etc/passwd", Kind::Privilege),
    ("/etc/group", Kind::Privilege),
    ("/etc/pam.d/", Kind::Privilege),
    ("/etc/ld.so.preload", Kind::Privilege),
];

/// Whether `path` is `entry` (a file) or below it (a directory, written with a trailing `/`).
fn names(path: &str, entry: &str) -> bool {
    match entry.strip_suffix('/') {
        Some(dir) => is_within(path, dir),
        None => path == entry,
    }
}

/// The block for writing `path` (absolute, normalised) when it persists or grants privileges.
pub(crate) fn path(path: &str, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let kind = below_home(path, ctx.home)
        .filter(|rel| !rel.is_empty())
        .and_then(|rel| IN_HOME.iter().find(|(e, _)| names(rel, e)))
        .or_else(|| SYSTEM.iter().find(|(e, _)| names(path, e)))
        .map(|(_, kind)| *kind)?;
    facts.command(CommandRisk::Mutation);
    Some(Verdict::block(
        RULE,
        kind.reason(&display(path, &ctx.root, ctx.home)),
    ))
}

/// The verdict on `crontab`, `at`, `visudo`, a setuid `chmod` or `install -m`, `setcap` and
/// adding a user to an admin group; `None` for any other command.
pub(crate) fn command(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let verdict = match cmd.program {
        "crontab" => crontab(cmd),
        "visudo"
            if cmd.args.iter().all(|a| a == "-c" || a == "--check") && !cmd.args.is_empty() =>
        {
            Verdict::auto("auto.read", "`visudo -c` checks sudoers")
        }
        "visudo" => Verdict::block(RULE, "`visudo` edits sudoers, which grants root"),
        "chmod" if cmd.args.iter().any(|a| sets_id_bit(a)) => Verdict::block(
            RULE,
            "sets a setuid or setgid bit: the program then runs with its owner's rights for anyone",
        ),
        "install" if mode_value(cmd.args).is_some_and(sets_id_bit) => {
            Verdict::block(RULE, "installs a program with a setuid or setgid bit")
        }
        "setcap" if !cmd.has_flag(&["-r", "-v"]) => Verdict::block(
            RULE,
            "gives a program file capabilities, rights beyond the user's",
        ),
        "at" | "batch" if !cmd.has_flag(&["-l", "-r", "-d", "-c", "-V"]) => Verdict::block(
            RULE,
            "schedules a job with `at`: it runs later, with no agent or person asking",
        ),
        "usermod" | "gpasswd" | "adduser" | "addgroup" if adds_admin_group(cmd) => {
            Verdict::block(RULE, "adds a user to an administrators' group")
        }
        _ => return None,
    };
    if verdict.decision != crate::types::Decision::Auto {
        facts.command(CommandRisk::Mutation);
    }
    Some(verdict)
}

fn crontab(cmd: &Cmd<'_>) -> Verdict {
    let mut args = cmd.args.iter().map(String::as_str);
    let mut action = None;
    while let Some(arg) = args.next() {
        match arg {
            "-u" => {
                args.next();
            }
            "-l" | "-r" | "-e" | "-i" => action = action.or(Some(arg)),
            _ => action = action.or(Some("install")),
        }
    }
    match action {
        Some("-l") => Verdict::auto("auto.read", "`crontab -l` lists the crontab"),
        Some("-r") => Verdict::ask(
            "ask.delete",
            RiskLevel::Medium,
            "`crontab -r` removes the user's crontab",
        ),
        _ => Verdict::block(
            RULE,
            "installs a crontab: its jobs run later, with no agent or person asking",
        ),
    }
}

/// `4755`, `02755`, `u+s`, `g=rxs`, `+s`, `a+rwxs`: a mode that sets setuid or setgid.
fn sets_id_bit(mode: &str) -> bool {
    if !mode.is_empty() && mode.len() <= 5 && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return mode.len() >= 4
            && mode
                .len()
                .checked_sub(4)
                .and_then(|i| mode.as_bytes().get(i))
                .is_some_and(|d| (d - b'0') & 0b110 != 0);
    }
    mode.split(',').any(|clause| {
        let who_end = clause
            .find(|ch: char| !matches!(ch, 'u' | 'g' | 'o' | 'a'))
            .unwrap_or(clause.len());
        let rest = clause.get(who_end..).unwrap_or_default();
        (rest.starts_with('+') || rest.starts_with('='))
            && rest.get(1..).is_some_and(|perms| {
                perms.contains('s') && perms.chars().all(|ch| "rwxXst".contains(ch))
            })
    })
}

/// The value of `-m MODE` / `--mode=MODE`.
fn mode_value(args: &[String]) -> Option<&str> {
    let mut it = args.iter().map(String::as_str);
    while let Some(arg) = it.next() {
        if arg == "-m" || arg == "--mode" {
            return it.next();
        }
        if let Some(v) = arg.strip_prefix("--mode=") {
            return Some(v);
        }
    }
    None
}

const ADMIN_GROUPS: &[&str] = &["sudo", "wheel", "admin", "root", "docker"];

fn adds_admin_group(cmd: &Cmd<'_>) -> bool {
    cmd.args
        .iter()
        .any(|a| a.split(',').any(|g| ADMIN_GROUPS.contains(&g)))
}
