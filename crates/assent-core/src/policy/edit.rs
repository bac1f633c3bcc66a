//! Writing a [`PolicyChange`] into the text of a policy file, keeping its comments and layout
//! (toml_edit): one edit for `assent policy suggest --apply` and `POST /v1/suggestions/apply`.
//! Pure: the caller reads and writes the file, and loads the result before writing it.

use crate::policy::suggest::PolicyChange;

/// Why a change cannot be written into a policy file's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyEditError {
    #[error("the policy file is not valid TOML: {0}")]
    Toml(String),
    #[error("{0} in the policy file is not an array")]
    NotAnArray(&'static str),
}

impl PolicyChange {
    /// The policy file's key this change adds to, and the value it adds.
    pub fn entry(&self) -> (&'static str, &str) {
        match self {
            PolicyChange::TrustRepo { repo } => ("trusted_repos", repo),
            PolicyChange::BlockCommand { pattern } => ("block_patterns", pattern),
        }
    }

    /// One line for people and the audit, e.g. `trusted_repos += /src/shop`.
    pub fn describe(&self) -> String {
        let (key, value) = self.entry();
        format!("{key} += {value}")
    }
}

/// `text` with each change added to its array (once: a value already there is kept as is),
/// everything else as written. An empty `text` is an empty file.
pub fn edit_policy(text: &str, changes: &[PolicyChange]) -> Result<String, PolicyEditError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| PolicyEditError::Toml(e.to_string()))?;
    for change in changes {
        let (key, value) = change.entry();
        let item = doc
            .entry(key)
            .or_insert_with(|| toml_edit::value(toml_edit::Array::new()));
        let array = item
            .as_array_mut()
            .ok_or(PolicyEditError::NotAnArray(key))?;
        if !array.iter().any(|v| v.as_str() == Some(value)) {
            array.push(value);
        }
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust(repo: &str) -> PolicyChange {
        PolicyChange::TrustRepo {
            repo: repo.to_owned(),
        }
    }

    #[test]
    fn keeps_comments_and_adds_once() {
        let text = "# my policy\ntrusted_repos = [\"/src/a\"] # keep me\n";
        let once = edit_policy(text, &[trust("/src/shop")]).unwrap_or_default();
        assert!(
            once.contains("# my policy") && once.contains("# keep me"),
            "comments stay: {once}"
        );
        assert!(once.contains("\"/src/shop\""), "the repo is added: {once}");
        let twice = edit_policy(&once, &[trust("/src/shop")]).unwrap_or_default();
        assert_eq!(once, twice, "applying twice changes nothing");
    }

    #[test]
    fn an_empty_file_gets_the_array() {
        let block = PolicyChange::BlockCommand {
            pattern: "git push --force".to_owned(),
        };
        let text = edit_policy("", &[block]).unwrap_or_default();
        assert_eq!(
            text, "block_patterns = [\"git push --force\"]\n",
            "a missing file becomes one holding just the change"
        );
    }

    #[test]
    fn refuses_what_it_cannot_edit() {
        assert!(
            matches!(
                edit_policy("trusted_repos = [", &[trust("/a")]),
                Err(PolicyEditError::Toml(_))
            ),
            "broken TOML is refused, not overwritten"
        );
        assert_eq!(
            edit_policy("trusted_repos = \"/a\"\n", &[trust("/b")]),
            Err(PolicyEditError::NotAnArray("trusted_repos")),
            "a key of the wrong type is refused"
        );
    }
}
