//! Windows and macOS spellings of what is blocked on Linux: a secret read through
//! `%USERPROFILE%\.ssh\id_rsa`, `$env:USERPROFILE\.aws\credentials` or `C:\Users\bob\…`; a
//! recursive delete of a drive, the Windows directory or a home (`Remove-Item -Recurse`,
//! `rd /s /q`, `del /s`); a drive formatted, restore points deleted, the password hashes'
//! hive saved (`format C:`, `vssadmin delete shadows`, `reg save HKLM\SAM`); PowerShell's
//! `-EncodedCommand`, decoded and judged; AppleScript run with administrator privileges.
//!
//! A shell reader takes `\` for an escape (`C:\Users` reads `C:Users`), so the line is also
//! read as cmd and PowerShell read it: words split at blanks and separators, quotes removed,
//! backslashes kept. Only blocks and asks come of it — never an answer laxer than the shell
//! reader's.

use crate::classify::ctx::Ctx;
use crate::classify::roads::Program;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::paths::normalize;
use crate::policy::PipeToShell;
use crate::shell::ShellScript;
use crate::types::{CommandRisk, Decision, RiskLevel, Role};

/// Deepest nesting of encoded PowerShell decoded (an encoded command that runs another).
const MAX_DEPTH: usize = 3;

/// Every verdict the line's Windows and macOS spellings give.
pub(crate) fn script(
    script: &ShellScript,
    line: Option<&str>,
    programs: &[Program],
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let joined;
    let text = match line {
        Some(line) => line,
        None => {
            joined = script
                .commands
                .iter()
                .map(|c| c.argv.join(" "))
                .collect::<Vec<_>>()
                .join("\n");
            &joined
        }
    };
    let cwd = script
        .commands
        .first()
        .map_or(ctx.root.as_str(), |c| c.cwd.as_str());
    let mut out = as_windows_reads_it(text, cwd, false, ctx, facts);
    for (cmd, program) in script.commands.iter().zip(programs) {
        out.extend(encoded_powershell(program, &cmd.cwd, 0, ctx, facts));
        out.extend(osascript(program, &cmd.cwd, ctx, facts));
    }
    out
}

/// The verdicts of `text` read as cmd or PowerShell would: secret paths named in Windows
/// spellings (in POSIX ones too when `posix`: decoded PowerShell is seen by nothing else),
/// recursive deletes of roots and homes, `Start-Process -Verb RunAs`.
fn as_windows_reads_it(
    text: &str,
    cwd: &str,
    posix: bool,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let mut out = Vec::new();
    for words in segments(text, 0) {
        for word in &words {
            // A word tried in several spellings leaves no trace unless one is blocked: the
            // others were never paths the line names.
            let blocked = candidates(word, cwd, posix, ctx).into_iter().find(|path| {
                ctx.check_path(path, Access::Read, &mut Facts::default())
                    .is_some_and(|v| v.decision == Decision::Block)
            });
            out.extend(blocked.and_then(|path| ctx.check_path(&path, Access::Read, facts)));
        }
        out.extend(recursive_delete(&words, cwd, ctx, facts));
        out.extend(machine_damage(&words, facts));
        out.extend(run_as_admin(&words, facts));
    }
    out
}

/// Deepest nesting of quoted command text read again as commands (`cmd /c "rd /s /q C:\"`).
const MAX_QUOTED: usize = 3;

/// The line's commands as cmd and PowerShell split them: words at blanks, commands at `;`,
/// `|`, `&`, newlines and brackets; `'…'` and `"…"` hold their text as it is. The command
/// line handed to `cmd /c`, `powershell -Command` or `sh -c` is read too: its commands follow.
fn segments(text: &str, depth: usize) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for ch in text.chars() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => word.push(ch),
            None => match ch {
                '\'' | '"' => {
                    quote = Some(ch);
                    in_word = true;
                }
                ';' | '|' | '&' | '\n' | '(' | ')' | '{' | '}' => {
                    end_word(&mut words, &mut word, &mut in_word);
                    if !words.is_empty() {
                        out.push(std::mem::take(&mut words));
                    }
                }
                c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
                c => {
                    word.push(c);
                    in_word = true;
                }
            },
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        out.push(words);
    }
    if depth < MAX_QUOTED {
        let inner: Vec<Vec<String>> = out
            .iter()
            .flat_map(|words| words.windows(2))
            .filter_map(|pair| match pair {
                [switch, command] if runs_next(switch) => Some(command),
                _ => None,
            })
            .flat_map(|command| segments(command, depth + 1))
            .collect();
        out.extend(inner);
    }
    out
}

/// A switch whose value is a command line: cmd's `/c`, `/k` and `/r`, PowerShell's
/// `-Command` (any abbreviation), a shell's `-c`. A quoted text elsewhere (a commit
/// message) is no command.
fn runs_next(switch: &str) -> bool {
    let lower = switch.to_ascii_lowercase();
    matches!(lower.as_str(), "/c" | "/k" | "/r" | "-c")
        || (lower.len() >= 3 && "-command".starts_with(&lower))
}

fn end_word(words: &mut Vec<String>, word: &mut String, in_word: &mut bool) {
    if *in_word {
        words.push(std::mem::take(word));
    }
    *in_word = false;
}

/// Where a home or a system folder is named by a variable: the variable (lowercase), what it
/// stands for (`~` for the home) and the folder under it.
const PLACES: &[(&str, &str, &str)] = &[
    ("%userprofile%", "~", ""),
    ("%homedrive%%homepath%", "~", ""),
    ("%homepath%", "~", ""),
    ("$env:homedrive$env:homepath", "~", ""),
    ("$env:homepath", "~", ""),
    ("$env:userprofile", "~", ""),
    ("${env:userprofile}", "~", ""),
    ("$env:home", "~", ""),
    ("$home", "~", ""),
    ("${home}", "~", ""),
    ("~", "~", ""),
    ("%appdata%", "~", "AppData/Roaming"),
    ("$env:appdata", "~", "AppData/Roaming"),
    ("%localappdata%", "~", "AppData/Local"),
    ("$env:localappdata", "~", "AppData/Local"),
    ("%systemroot%", "/", "Windows"),
    ("%windir%", "/", "Windows"),
    ("$env:systemroot", "/", "Windows"),
    ("$env:windir", "/", "Windows"),
    ("%programfiles%", "/", "Program Files"),
    ("$env:programfiles", "/", "Program Files"),
    ("%programdata%", "/", "ProgramData"),
    ("$env:programdata", "/", "ProgramData"),
    ("%systemdrive%", "/", ""),
    ("$env:systemdrive", "/", ""),
];

/// The path a Windows-spelled word names, absolute: `(base, rest)` where `base` is `/` or the
/// home and `rest` uses `/`. POSIX spellings (`~/…`, `/…`) only when `posix`.
fn windows_path(word: &str, posix: bool, ctx: &Ctx<'_>) -> Option<(String, String)> {
    // A parameter and its value in one word: `-Path:C:\x`, `-literalpath:~\x`.
    let word = match word.split_once(':') {
        Some((_, value)) if word.starts_with('-') => value,
        _ => word,
    };
    let windows = word.contains('\\') || word.contains('%') || word.contains(':');
    if !windows && !posix {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    for (var, base, under) in PLACES {
        let Some(rest) = lower.strip_prefix(var) else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(['\\', '/'])) {
            continue;
        }
        // The rest as written (case kept), after the variable.
        let rest = word.get(var.len()..).unwrap_or_default();
        let base = if *base == "~" { ctx.home } else { "/" };
        let rest = format!("{under}/{}", rest.replace('\\', "/"));
        return Some((base.to_owned(), rest));
    }
    let bytes = word.as_bytes();
    let drive = bytes.len() >= 2
        && bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.get(1) == Some(&b':')
        && (bytes.len() == 2 || matches!(bytes.get(2), Some(b'\\' | b'/')));
    if drive {
        let rest = word.get(2..).unwrap_or_default().replace('\\', "/");
        return Some(("/".to_owned(), rest));
    }
    if word.starts_with(".\\") || word.starts_with("..\\") || (posix && word.starts_with('/')) {
        return Some((String::new(), word.replace('\\', "/")));
    }
    None
}

/// The absolute paths `word` may name: as written, and with Windows' case-blind names put in
/// the case the policy's globs use (`c:\users\bob\.SSH\ID_RSA` is `/Users/bob/.ssh/id_rsa`).
fn candidates(word: &str, cwd: &str, posix: bool, ctx: &Ctx<'_>) -> Vec<String> {
    let Some((base, rest)) = windows_path(word, posix, ctx) else {
        return Vec::new();
    };
    let join = |rest: &str| {
        if base.is_empty() {
            normalize(rest, cwd, ctx.home)
        } else {
            normalize(&format!("{base}/{rest}"), "/", ctx.home)
        }
    };
    let mut out: Vec<String> = Vec::new();
    for form in [rest.clone(), lower_case(&rest), canonical_case(&rest)] {
        let path = join(&form);
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// `rest` lowercased (dotfiles are), but for the folder homes are in (`Users`).
fn lower_case(rest: &str) -> String {
    let lower = rest.to_ascii_lowercase();
    match lower
        .strip_prefix("/users/")
        .or_else(|| lower.strip_prefix("users/"))
    {
        Some(under) => format!("/Users/{under}"),
        None => lower,
    }
}

/// Folder and file names of homes, browsers and key stores in the case their globs are
/// written in; any other name is lowercased (dotfiles are).
const NAMES: &[&str] = &[
    "Users",
    "Windows",
    "Program Files",
    "ProgramData",
    "AppData",
    "Local",
    "Roaming",
    "Google",
    "Chrome",
    "Chromium",
    "User Data",
    "Default",
    "Network",
    "Cookies",
    "Login Data",
    "Web Data",
    "Local State",
    "Microsoft",
    "Edge",
    "Credentials",
    "Protect",
    "BraveSoftware",
    "Brave-Browser",
    "Mozilla",
    "Firefox",
    "Profiles",
    "Opera Software",
    "Library",
    "Keychains",
    "Application Support",
];

fn canonical_case(rest: &str) -> String {
    rest.split('/')
        .map(|name| {
            NAMES
                .iter()
                .find(|known| known.eq_ignore_ascii_case(name))
                .map_or_else(|| name.to_ascii_lowercase(), |known| (*known).to_owned())
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The program a cmd or PowerShell command runs, lowercase, without its folder or `.exe`.
fn program_of(word: &str) -> String {
    let name = word.rsplit(['\\', '/']).next().unwrap_or(word);
    let lower = name.to_ascii_lowercase();
    lower.strip_suffix(".exe").unwrap_or(&lower).to_owned()
}

/// `Remove-Item -Recurse -Force C:\` (any abbreviation and order: `ri -r -fo`, `rm -Recurse`),
/// `rd /s /q C:\Windows`, `rmdir /s %USERPROFILE%`, `del /s /q C:\*`: a drive, a system folder
/// or a home deleted.
fn recursive_delete(
    words: &[String],
    cwd: &str,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Option<Verdict> {
    let at = words.iter().position(|w| !is_prefix(w))?;
    let (first, args) = words.get(at..)?.split_first()?;
    let program = program_of(first);
    let powershell = matches!(
        program.as_str(),
        "remove-item" | "ri" | "rm" | "rmdir" | "rd" | "del" | "erase"
    );
    let cmd = matches!(program.as_str(), "rd" | "rmdir" | "del" | "erase");
    let recursive = args.iter().any(|a| {
        let lower = a.to_ascii_lowercase();
        let flag = lower.split(':').next().unwrap_or(&lower);
        (powershell && flag.len() >= 2 && "-recurse".starts_with(flag)) || (cmd && flag == "/s")
    });
    if !recursive {
        return None;
    }
    let target = args.iter().find_map(|a| {
        if a.starts_with('-') || is_switch(a) {
            return None;
        }
        candidates(a, cwd, true, ctx)
            .iter()
            .find_map(|path| class_of(path, ctx))
            .map(|class| (a, class))
    })?;
    facts.command(CommandRisk::Destructive);
    Some(Verdict::block(
        "block.destructive",
        format!("`{first}` deletes {} recursively, {}", target.0, target.1),
    ))
}

/// Windows' spellings of `mkfs` and of reading `/etc/shadow`: a drive formatted or a disk
/// cleared, the restore points and backups deleted, the registry hives that hold the
/// machine's password hashes saved to a file.
fn machine_damage(words: &[String], facts: &mut Facts) -> Option<Verdict> {
    let at = words.iter().position(|w| !is_prefix(w))?;
    let (first, args) = words.get(at..)?.split_first()?;
    let args: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let has = |word: &str| args.iter().any(|a| a == word);
    let drive = |a: &String| {
        let bytes = a.as_bytes();
        bytes.len() >= 2
            && bytes.first().is_some_and(u8::is_ascii_alphabetic)
            && bytes.get(1) == Some(&b':')
            && bytes.len() <= 3
    };
    let destroyed = match program_of(first).as_str() {
        "format" if args.iter().any(drive) => Some("formats a drive"),
        "format-volume" | "clear-disk" | "initialize-disk" | "remove-partition" => {
            Some("erases a disk or a volume")
        }
        "vssadmin" if has("delete") => Some("deletes the volume shadow copies (restore points)"),
        "wmic" if has("shadowcopy") && has("delete") => {
            Some("deletes the volume shadow copies (restore points)")
        }
        "wbadmin" if has("delete") => Some("deletes the machine's backups"),
        _ => None,
    };
    if let Some(what) = destroyed {
        facts.command(CommandRisk::Destructive);
        return Some(Verdict::block(
            "block.destructive",
            format!("`{first}` {what}"),
        ));
    }
    let hive = |a: &String| {
        let key = a
            .strip_prefix("hklm\\")
            .or_else(|| a.strip_prefix("hkey_local_machine\\"));
        key.is_some_and(|k| matches!(k.trim_end_matches('\\'), "sam" | "security" | "system"))
    };
    let saves_hive = program_of(first) == "reg"
        && args
            .first()
            .is_some_and(|verb| verb == "save" || verb == "export")
        && args.get(1).is_some_and(hive);
    saves_hive.then(|| {
        facts.path(crate::types::PathRisk::Sensitive);
        Verdict::block(
            "block.secret_path",
            format!(
                "`reg` saves {}, the registry hive that holds the machine's password hashes",
                args.get(1).map_or("", String::as_str).to_ascii_uppercase()
            ),
        )
    })
}

/// A word that runs the rest of its command (`cmd /c`, `powershell -Command`, `sudo`,
/// `env X=1`, `timeout 5`): the program is the first word that is none of these.
fn is_prefix(word: &str) -> bool {
    let wrapper = matches!(
        program_of(word).as_str(),
        "cmd"
            | "call"
            | "start"
            | "powershell"
            | "pwsh"
            | "sudo"
            | "doas"
            | "gsudo"
            | "command"
            | "builtin"
            | "exec"
            | "env"
            | "nice"
            | "nohup"
            | "timeout"
            | "stdbuf"
            | "time"
            | "xargs"
            | "busybox"
    );
    wrapper
        || word.starts_with('-')
        || is_switch(word)
        || word.contains('=')
        || word.starts_with(|c: char| c.is_ascii_digit())
}

/// A cmd switch: `/s`, `/q`, `/a:h`.
fn is_switch(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next() == Some('/')
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && matches!(chars.next(), None | Some(':'))
}

/// What deleting `path` (absolute; a trailing `/*` means its contents) destroys, when it is a
/// drive, a system folder or a home.
fn class_of(path: &str, ctx: &Ctx<'_>) -> Option<&'static str> {
    let base = path.strip_suffix("/*").unwrap_or(path);
    let base = if base.is_empty() { "/" } else { base };
    if base == "/" {
        return Some("a whole drive");
    }
    if base == ctx.home || crate::classify::destroy::is_home(base) {
        return Some("a user's home directory");
    }
    let mut names = base.trim_start_matches('/').split('/');
    let top = names.next().unwrap_or_default().to_ascii_lowercase();
    let system = matches!(
        top.as_str(),
        "windows" | "program files" | "program files (x86)" | "programdata" | "users"
    );
    let depth = names.count();
    if system && (depth == 0 || top == "windows") {
        return Some("a system directory");
    }
    crate::classify::known_programs::SYSTEM_DIRS
        .contains(&base)
        .then_some("a system directory")
}

/// `Start-Process … -Verb RunAs`: PowerShell's `sudo`.
fn run_as_admin(words: &[String], facts: &mut Facts) -> Option<Verdict> {
    let runs_as = words.windows(2).any(|pair| {
        pair.first().is_some_and(|f| {
            let f = f.to_ascii_lowercase();
            f.len() >= 2 && "-verb".starts_with(&f)
        }) && pair.get(1).is_some_and(|v| v.eq_ignore_ascii_case("runas"))
    });
    runs_as.then(|| {
        facts.command(CommandRisk::Mutation);
        Verdict::ask(
            "ask.privileged",
            RiskLevel::High,
            "runs with elevated privileges (`Start-Process -Verb RunAs`)",
        )
    })
}

fn is_powershell(program: &str) -> bool {
    matches!(
        program_of(program).as_str(),
        "pwsh" | "powershell" | "powershell_ise"
    )
}

/// The value of PowerShell's `-EncodedCommand` (or `-e`, `-ec`, `-en…`; `/` works as `-`).
fn encoded_value(args: &[String]) -> Option<Option<&str>> {
    let at = args.iter().position(|a| {
        let lower = a.to_ascii_lowercase();
        let flag = lower.trim_start_matches(['-', '/']);
        lower.starts_with(['-', '/'])
            && (flag == "e"
                || flag == "ec"
                || (flag.len() >= 2 && "encodedcommand".starts_with(flag)))
    })?;
    Some(args.get(at + 1).map(String::as_str))
}

/// `powershell -enc BASE64`: the script decoded (base64 of UTF-16LE) and judged as its Linux
/// spellings would be, and always asked with the decoded text shown; asked too when it does
/// not decode.
fn encoded_powershell(
    (program, args): &Program<'_>,
    cwd: &str,
    depth: usize,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    // PowerShell run by another program (`cmd /c powershell -enc …`, `start pwsh …`): its
    // arguments follow its name.
    let args = if is_powershell(program) {
        *args
    } else {
        match args.iter().position(|a| is_powershell(a)) {
            Some(at) => args.get(at + 1..).unwrap_or_default(),
            None => return Vec::new(),
        }
    };
    let Some(value) = encoded_value(args) else {
        return Vec::new();
    };
    let Some(decoded) = value.and_then(decode_utf16_base64) else {
        facts.command(CommandRisk::Mutation);
        return vec![Verdict::ask(
            "ask.unparsed",
            RiskLevel::High,
            "PowerShell's -EncodedCommand does not decode (it must be base64 of UTF-16LE text): what it would run cannot be seen",
        )];
    };
    facts.command(CommandRisk::Mutation);
    let mut out = vec![Verdict::ask(
        "ask.interpreter",
        RiskLevel::High,
        format!(
            "PowerShell runs an encoded command, decoded: `{}`",
            crate::text::first_chars_marked(&crate::text::one_line(&decoded), 200)
        ),
    )];
    out.extend(judge_powershell(&decoded, cwd, depth, ctx, facts));
    out
}

/// PowerShell code (decoded, or handed to `do shell script`) judged by what it would run: its
/// Windows and POSIX spellings, a download run with `iex`, and each command as the shell
/// reader sees it; only what blocks or escalates is kept (the caller asks anyway).
fn judge_powershell(
    code: &str,
    cwd: &str,
    depth: usize,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let mut out = as_windows_reads_it(code, cwd, true, ctx, facts);
    let whole = [code.to_owned()];
    if crate::classify::roads::powershell_download(&("powershell", &whole[..])) {
        let reason = "PowerShell runs code downloaded from the network (`iex` of a download)";
        out.push(match ctx.policy.pipe_to_shell {
            PipeToShell::Block => Verdict::block("block.pipe_to_shell", reason),
            PipeToShell::Escalate => {
                Verdict::escalate("escalate.pipe_to_shell", Role::SecurityReviewer, reason)
            }
        });
    }
    let parsed = crate::shell::parse_script(code, cwd, ctx.home);
    for cmd in &parsed.commands {
        let strict = crate::classify::per_command::classify_command(cmd, ctx, facts)
            .into_iter()
            .filter(|v| matches!(v.decision, Decision::Block | Decision::Escalate));
        out.extend(strict);
        if depth + 1 < MAX_DEPTH {
            let eff = crate::shell::wrappers::effective(&cmd.argv);
            if let Some((first, rest)) = eff.argv.split_first() {
                let program = crate::shell::wrappers::program_name(first);
                out.extend(encoded_powershell(
                    &(program, rest),
                    cwd,
                    depth + 1,
                    ctx,
                    facts,
                ));
            }
        }
    }
    out
}

/// `osascript -e '… with administrator privileges'`: macOS's `sudo`, asked as `sudo` is; the
/// shell script it hands to `do shell script` judged as a shell line (with privileges).
fn osascript(
    (program, args): &Program<'_>,
    cwd: &str,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    if *program != "osascript" {
        return Vec::new();
    }
    let code = args.join("\n");
    let lower = code.to_ascii_lowercase();
    let admin = lower.contains("administrator privileges");
    let mut out = Vec::new();
    if admin {
        facts.command(CommandRisk::Mutation);
        out.push(Verdict::ask(
            "ask.privileged",
            RiskLevel::High,
            "runs with elevated privileges (AppleScript `with administrator privileges`)",
        ));
    }
    for inner in shell_scripts(&code) {
        let parsed = crate::shell::parse_script(&inner, cwd, ctx.home);
        for mut cmd in parsed.commands {
            cmd.privileged |= admin;
            out.extend(
                crate::classify::per_command::classify_command(&cmd, ctx, facts)
                    .into_iter()
                    .filter(|v| v.decision != Decision::Auto),
            );
        }
    }
    out
}

/// The strings AppleScript hands to `do shell script "…"` (`\"` and `\\` unescaped).
fn shell_scripts(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = code.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|l| l.find("do shell script")) {
        let start = from + at + "do shell script".len();
        let rest = code.get(start..).unwrap_or_default();
        let Some(open) = rest.find('"') else {
            break;
        };
        let mut text = String::new();
        let mut chars = rest.get(open + 1..).unwrap_or_default().chars();
        while let Some(ch) = chars.next() {
            match ch {
                '\\' => text.extend(chars.next()),
                '"' => break,
                c => text.push(c),
            }
        }
        out.push(text);
        from = start;
    }
    out
}

/// Base64 (standard alphabet, padding optional) of UTF-16LE text, decoded.
fn decode_utf16_base64(text: &str) -> Option<String> {
    let bytes = decode_base64(text.trim())?;
    if bytes.len() % 2 != 0 || bytes.is_empty() {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| match pair {
            [lo, hi] => u16::from_le_bytes([*lo, *hi]),
            _ => 0,
        })
        .collect();
    String::from_utf16(&units).ok()
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let body = text.trim_end_matches('=');
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in body.bytes() {
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn base64_of_utf16le_decodes() {
        assert_eq!(
            decode_utf16_base64("RwBlAHQALQBDAGgAaQBsAGQASQB0AGUAbQA=").as_deref(),
            Some("Get-ChildItem"),
            "PowerShell's -EncodedCommand is base64 of UTF-16LE"
        );
        assert_eq!(
            decode_utf16_base64("RwBlAHQALQBDAGgAaQBsAGQASQB0AGUAbQA").as_deref(),
            Some("Get-ChildItem"),
            "padding is optional"
        );
        assert_eq!(
            decode_utf16_base64("not base64!"),
            None,
            "a character outside the alphabet does not decode"
        );
        assert_eq!(
            decode_utf16_base64("R2V0"),
            None,
            "an odd number of bytes is no UTF-16"
        );
    }

    #[test]
    fn cmd_and_powershell_words_keep_their_backslashes() {
        assert_eq!(
            segments(
                r#"type "C:\Users\bob\.ssh\id_rsa" & del /s /q C:\x; gc ~\a"#,
                0
            ),
            vec![
                vec!["type".to_owned(), r"C:\Users\bob\.ssh\id_rsa".to_owned()],
                vec![
                    "del".to_owned(),
                    "/s".to_owned(),
                    "/q".to_owned(),
                    r"C:\x".to_owned()
                ],
                vec!["gc".to_owned(), r"~\a".to_owned()],
            ],
            "quotes are removed, backslashes kept, commands split at & and ;"
        );
    }
}
