//! What an edit writes: a credential put into a file (a Write, Edit or MultiEdit of Claude
//! Code, an `apply_patch` of Codex, any agent's edit that carries its text), found by the
//! masking's own rules ([`crate::mask::credentials`]) so what is asked about is what every
//! surface masks. A file in a repository is read by whoever reads the repository and kept in
//! its history: a person decides.

use crate::classify::ctx::Ctx;
use crate::classify::verdict::Verdict;
use crate::types::RiskLevel;

/// The verdict for an edit of `paths` whose new text holds a credential its old text did not
/// (an edit that moves a key already there, or removes one, writes none).
pub(crate) fn credentials(paths: &[String], ctx: &Ctx<'_>) -> Option<Verdict> {
    let edit = ctx.edit?;
    let old = edit.old.as_deref().unwrap_or_default();
    let mut found: Vec<crate::mask::Credential> = Vec::new();
    for credential in crate::mask::credentials(&edit.new) {
        let new = !old.contains(&credential.found);
        if new && !found.iter().any(|f| f.found == credential.found) {
            found.push(credential);
        }
    }
    let first = found.first()?;
    let file = paths.first().map_or_else(
        || "a file".to_owned(),
        |p| crate::paths::display(p, &ctx.root, ctx.home),
    );
    let place = if paths.first().is_some_and(|p| ctx.within_root(p)) {
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
