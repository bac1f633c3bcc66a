//! Production deployment configuration: a file whose path names production (`prod`,
//! `production`, `prd` as a word of a folder or file name) and that configures a deployment —
//! Helm values, a Kubernetes manifest or overlay, Terraform, a Compose file, an Ansible
//! inventory, a deploy workflow. Changing it changes what runs in production once it is
//! applied, often by a pipeline with no person in between: a person decides.
//!
//! A path that names production but configures no deployment (`src/production.rs`,
//! `docs/prod-checklist.md`, `fixtures/prod_orders.json`) is an ordinary file, and a
//! deployment file for another environment (`values-staging.yaml`) an ordinary change.

/// Words of a path that name production.
const PRODUCTION: &[&str] = &["prod", "production", "prd"];

/// Extensions of configuration files (Terraform's included).
const CONFIG: &[&str] = &[
    "yaml",
    "yml",
    "json",
    "tf",
    "tfvars",
    "hcl",
    "toml",
    "jsonnet",
    "libsonnet",
    "cue",
    "ini",
    "conf",
    "cfg",
    "properties",
    "env",
];

/// Folders whose configuration files are deployment configuration, and what they hold.
const FOLDERS: &[(&str, &str)] = &[
    ("helm", "Helm values"),
    ("charts", "Helm values"),
    ("chart", "Helm values"),
    ("terraform", "Terraform"),
    ("terragrunt", "Terraform"),
    ("tf", "Terraform"),
    ("k8s", "a Kubernetes manifest"),
    ("kubernetes", "a Kubernetes manifest"),
    ("kube", "a Kubernetes manifest"),
    ("manifests", "a Kubernetes manifest"),
    ("kustomize", "a Kubernetes manifest"),
    ("overlays", "a Kubernetes manifest"),
    ("argocd", "a Kubernetes manifest"),
    ("flux", "a Kubernetes manifest"),
    ("gitops", "a Kubernetes manifest"),
    ("ansible", "an Ansible inventory"),
    ("inventories", "an Ansible inventory"),
    ("inventory", "an Ansible inventory"),
    ("deploy", "deployment configuration"),
    ("deployment", "deployment configuration"),
    ("deployments", "deployment configuration"),
    ("environments", "deployment configuration"),
    ("envs", "deployment configuration"),
    ("infra", "deployment configuration"),
    ("infrastructure", "deployment configuration"),
];

/// What `rel` (relative to the repository) is when it is production deployment
/// configuration; `ci` says whether the policy counts it as CI configuration (a workflow).
pub(crate) fn production_config(rel: &str, ci: bool) -> Option<&'static str> {
    let lower = rel.to_ascii_lowercase();
    let words = |part: &str| {
        part.split(['.', '-', '_'])
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let names_production = lower
        .split('/')
        .any(|part| words(part).iter().any(|w| PRODUCTION.contains(&w.as_str())));
    if !names_production {
        return None;
    }
    let (folders, file) = match lower.rsplit_once('/') {
        Some((folders, file)) => (folders, file),
        None => ("", lower.as_str()),
    };
    if ci {
        return Some("a deploy workflow");
    }
    let ext = file.rsplit_once('.').map_or("", |(_, ext)| ext);
    if !CONFIG.contains(&ext) {
        return None;
    }
    if matches!(ext, "tf" | "tfvars" | "hcl") || file.ends_with(".tfvars.json") {
        return Some("Terraform");
    }
    let stem = words(file);
    let first = stem.first().map_or("", String::as_str);
    if first == "values" {
        return Some("Helm values");
    }
    if first == "kustomization" {
        return Some("a Kubernetes manifest");
    }
    if matches!(first, "docker" | "compose") && stem.iter().any(|w| w == "compose") {
        return Some("a Compose file");
    }
    folders
        .split('/')
        .flat_map(|part| std::iter::once(part.to_owned()).chain(words(part)))
        .find_map(|part| {
            FOLDERS
                .iter()
                .find(|(name, _)| *name == part)
                .map(|(_, what)| *what)
        })
}

/// Whether a workflow's text deploys to a production environment: production named as a word
/// on the line that names the `environment`, or in the `name` that follows it (GitHub's
/// `environment: production`, GitLab's `environment:\n  name: production`).
pub(crate) fn deploys_to_production(text: &str) -> bool {
    let mut after_environment = false;
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        let environment = lower.contains("environment");
        let production = lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| PRODUCTION.contains(&w));
        if production && (environment || (after_environment && lower.contains("name"))) {
            return true;
        }
        // `environment:` alone opens a block whose `name:` follows.
        after_environment = lower.trim_end().ends_with("environment:");
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_is_a_word_of_the_path_not_a_substring() {
        assert_eq!(
            production_config("k8s/overlays/production/deployment.yaml", false),
            Some("a Kubernetes manifest"),
            "an overlay for production is a production manifest"
        );
        assert_eq!(
            production_config("k8s/overlays/reproduce/deployment.yaml", false),
            None,
            "`reproduce` holds the letters of `prod`, not the word"
        );
        assert_eq!(
            production_config("deploy/products/config.yaml", false),
            None,
            "`products` is not production"
        );
    }

    #[test]
    fn a_workflow_deploys_to_production_when_its_environment_is_production() {
        assert!(
            deploys_to_production("    environment: production\n"),
            "GitHub's environment key"
        );
        assert!(
            deploys_to_production("  environment:\n    name: prod\n    url: x"),
            "GitLab's environment block names it on the next line"
        );
        assert!(
            !deploys_to_production("  environment: staging\n  run: make prod-docs"),
            "production named away from the environment is no production deploy"
        );
    }
}
