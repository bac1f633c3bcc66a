//! What an edit writes: a credential put into a file (a Write, Edit, MultiEdit or
//! NotebookEdit of Claude Code, an `apply_patch` of Codex, any agent's edit that carries its
//! text, or a shell line that spells it out and writes a file), found by the masking's own
//! rules ([`crate::mask::credentials`]) so what is asked about is what every surface masks.
//! A file in a repository is read by whoever reads the repository and kept in its history: a
//! person decides.

use crate::classify::ctx::Ctx;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::types::RiskLevel;

/// The verdict for an edit of `paths` whose new text holds a credential its old text did not
/// (an edit that moves a key already there, or removes one, writes none).
pub(crate) fn credentials(paths: &[String], ctx: &Ctx<'_>) -> Option<Verdict> {
    let edit = ctx.edit?;
    let old = edit.old.as_deref().unwrap_or_default();
    verdict(&edit.new, old, paths.first().map(String::as_str), ctx)
}

/// The verdict for a shell line that writes a file (`facts.changed`) and holds a credential
/// in its own text (`echo 'ghp_…' >> settings.py`, `sed -i 's/X/AKIA…/' f`): the credential
/// is what the line writes. A line that reaches the network is left to the network's rules
/// (a token in `curl -H … -o out.json` authenticates the request, it is not written).
pub(crate) fn by_command(
    text: &str,
    reaches_network: bool,
    facts: &Facts,
    ctx: &Ctx<'_>,
) -> Option<Verdict> {
    if reaches_network {
        return None;
    }
    let (written, _) = facts.changed.iter().find(|(_, a)| *a == Access::Write)?;
    verdict(text, "", Some(written), ctx)
}

/// The ask for the credentials `new` holds and `old` does not, written into `path`.
fn verdict(new: &str, old: &str, path: Option<&str>, ctx: &Ctx<'_>) -> Option<Verdict> {
    let mut found: Vec<crate::mask::Credential> = Vec::new();
    for credential in crate::mask::credentials(new) {
        let fresh = !old.contains(&credential.found);
        if fresh && !found.iter().any(|f| f.found == credential.found) {
            found.push(credential);
        }
    }
    let first = found.first()?;
    let file = path.map_or_else(
        || "a file".to_owned(),
        |p| crate::paths::display(p, &ctx.root, ctx.home),
    );
    let place = if path.is_some_and(|p| ctx.within_root(p)) {
        "in the repository: whoever reads it, or its history, has it"
    } else {
        "outside the secret stores"
    };
    let more = match found.len() {
        1 => String::new(),
        n => format!(
            " and {} more ({})",
            n - 1,
            found
                .iter()
                .skip(1)
                .map(|c| format!("{}: {}", c.kind, c.shown))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Some(Verdict::ask(
        "ask.secret_written",
        RiskLevel::High,
        format!(
            "writes {} into {file} ({}){more}, {place}",
            first.kind, first.shown
        ),
    ))
}
