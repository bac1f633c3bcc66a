//! The one entry point: a request in, a canonical action, its hash, risk and decision out.

pub(crate) mod decide;
pub mod offer;

// Their paths from when they sat here, kept for the other crates.
pub use crate::{decision, evaluation};

use std::sync::Arc;

use crate::classify::ctx::Ctx;

use crate::classify::verdict::{Facts, Verdict};
use crate::classify::{classify_other, classify_script};
use crate::decision::{ActionRiskInput, RiskDecision};
use crate::evaluate::decide::decide;
use crate::evaluation::batch_key;
pub use crate::evaluation::Evaluation;
use crate::own::places::{OwnPlace, OwnPlaces};
use crate::paths::links::{Links, PathResolver};
use crate::paths::normalize;
use crate::policy::profile::{match_profile, normalize_flags};
use crate::policy::Policy;
use crate::request::canon::{action_hash, canonicalize_parsed, CanonError, CanonicalAction};
use crate::request::{ActionRequest, MAX_EDIT_BYTES};
use crate::review::Review;
use crate::shell::word::has_suspicious_chars;
use crate::shell::wrappers::effective;
use crate::shell::ShellScript;
use crate::types::{
    ActionKind, CommandRisk, DiffRisk, PathRisk, RepoTrust, RiskLevel, RunMode, ScopeKind,
};

/// What the evaluation needs from the machine it runs on (no I/O happens in the core).
///
/// `Environment::new(home)` takes every path as written; `.with_resolver(…)` lets the
/// evaluation learn where symlinks really lead (see [`crate::paths::links`]). Assent's own places
/// default to the XDG layout under `home`; the `with_…_dir` and `with_policy_file` calls add
/// the places this service really uses (see [`crate::own::places`]: agents are blocked from
/// all of them).
#[derive(Clone)]
pub struct Environment {
    /// The user's home directory, for `~` and `$HOME`.
    pub home: String,
    resolver: Option<Arc<dyn PathResolver>>,
    own: OwnPlaces,
}

impl Environment {
    /// An environment that resolves no symlinks.
    pub fn new(home: impl Into<String>) -> Self {
        let home = home.into();
        Environment {
            own: OwnPlaces::under_home(&home),
            home,
            resolver: None,
        }
    }

    /// Also protects `dir` (absolute) as Assent's data dir: its tokens and database.
    #[must_use]
    pub fn with_data_dir(mut self, dir: &str) -> Self {
        self.own.add(OwnPlace::Data, dir);
        self
    }

    /// Also protects `dir` (absolute) as Assent's config dir.
    #[must_use]
    pub fn with_config_dir(mut self, dir: &str) -> Self {
        self.own.add(OwnPlace::Config, dir);
        self
    }

    /// Also protects `dir` (absolute) as Assent's state dir (logs).
    #[must_use]
    pub fn with_state_dir(mut self, dir: &str) -> Self {
        self.own.add(OwnPlace::State, dir);
        self
    }

    /// Also protects `file` (absolute): the policy file the service runs with.
    #[must_use]
    pub fn with_policy_file(mut self, file: &str) -> Self {
        self.own.add(OwnPlace::Policy, file);
        self
    }

    /// Also protects `file` (absolute): the key signing the audit's checkpoints, when the
    /// service keeps it outside its data dir (`--audit-key`).
    #[must_use]
    pub fn with_audit_key(mut self, file: &str) -> Self {
        self.own.add(OwnPlace::AuditKey, file);
        self
    }

    /// Also protects `path` (absolute) as the binary the agents' hooks run (any `assent` in a
    /// `bin` directory always is).
    #[must_use]
    pub fn with_gate_binary(mut self, path: &str) -> Self {
        self.own.add_gate_binary(path);
        self
    }

    /// Also protects the hook files in an agent's configuration dir (absolute), such as
    /// `$CODEX_HOME` or `$CLAUDE_CONFIG_DIR` (any `.claude` and `.codex` dir always is).
    #[must_use]
    pub fn with_agent_config_dir(mut self, dir: &str) -> Self {
        self.own.add_hook_dir(dir);
        self
    }

    /// Also protects every file in `dir` (absolute), a directory an agent loads hooks or
    /// plugins from whatever they are called: `$COPILOT_HOME/hooks`,
    /// `$XDG_CONFIG_HOME/opencode/plugin`.
    #[must_use]
    pub fn with_agent_hook_file_dir(mut self, dir: &str) -> Self {
        self.own.add_hook_file_dir(dir);
        self
    }

    /// The service answers on `port`: its approver routes there are Assent's on any host
    /// (on a loopback host they are on every port).
    #[must_use]
    pub fn with_service_port(mut self, port: u16) -> Self {
        self.own.add_port(port);
        self
    }

    /// The service answers to `host` (a team's public URL): its approver routes there are
    /// Assent's on any port.
    #[must_use]
    pub fn with_service_host(mut self, host: &str) -> Self {
        self.own.add_host(host);
        self
    }

    /// Assent's own places and the agents' hook configuration, as protected.
    pub fn own_places(&self) -> &OwnPlaces {
        &self.own
    }

    /// Resolves every path through `resolver` (the machine's filesystem, or a fake in tests).
    #[must_use]
    pub fn with_resolver(mut self, resolver: Arc<dyn PathResolver>) -> Self {
        self.resolver = Some(resolver);
        self
    }

    pub fn resolver(&self) -> Option<&dyn PathResolver> {
        self.resolver.as_deref()
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("home", &self.home)
            .field("resolves_symlinks", &self.resolver.is_some())
            .field("own", &self.own)
            .finish()
    }
}

/// A request that cannot be evaluated at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvaluateError {
    #[error(transparent)]
    Canon(#[from] CanonError),
    #[error("home must be an absolute path, got {0:?}")]
    RelativeHome(String),
    #[error(transparent)]
    UnknownCapability(#[from] crate::capability::UnknownCapability),
    #[error(transparent)]
    Exception(#[from] crate::exception::eval::ExceptionError),
}

/// Evaluates `request` under `policy`.
pub fn evaluate(
    policy: &Policy,
    request: &ActionRequest,
    env: &Environment,
) -> Result<Evaluation, EvaluateError> {
    if !env.home.starts_with('/') {
        return Err(EvaluateError::RelativeHome(env.home.clone()));
    }
    check_edit(request)?;
    let home = normalize(&env.home, "/", "/");
    let (mut canonical, script) = canonicalize_parsed(&request.action, &home)?;
    canonical.diff_fingerprint = crate::diff::review::fingerprint(request);
    let root = repo_root(request, &canonical.cwd, &home);
    // The capability it asks for, looked up once (an unknown one fails below, where it did).
    let capability = crate::capability::eval::requested(policy, request);
    let ctx = Ctx {
        policy,
        home: &home,
        links: Links::new(env.resolver(), &root, &home),
        root,
        trusted: is_trusted(policy, request, &home),
        own: &env.own,
        edit: request
            .context
            .edit
            .as_ref()
            .filter(|_| request.action.kind == ActionKind::FileWrite),
        injected: capability
            .as_ref()
            .ok()
            .copied()
            .flatten()
            .map(|(_, cap)| cap.inject_as.as_str()),
    };
    let mut facts = Facts::default();
    let mut verdicts = match &script {
        Some(s) => classify_script(s, request.action.command.as_deref(), &ctx, &mut facts),
        None => classify_other(&canonical, &ctx, &mut facts),
    };
    let hidden_text = suspicious(request, &canonical);
    verdicts.extend(context_verdicts(request, hidden_text, &facts));
    let capability = capability?;
    verdicts.extend(crate::capability::eval::verdicts(
        policy, capability, request, &canonical, &facts, &home,
    ));
    let review = Review::of(request, &canonical, script.as_ref(), &facts, &ctx);
    verdicts.extend(review.verdict());
    let exception = crate::exception::eval::check(policy, request, &verdicts, &facts.network)?;
    let rules = crate::exception::eval::fired(&verdicts);
    let exceptionable = crate::exception::eval::exceptionable(
        policy,
        &rules,
        &crate::exception::eval::command_line(request),
    );
    let mut decision = decide(&verdicts, request.action.kind);
    review.shape(&mut decision);
    if let Some(s) = &script {
        normalize_profile_flags(policy, s, &mut canonical);
    }
    canonical.real_paths = ctx.links.differing();
    if !crate::grant::matching::own_paths_coverable(request, &canonical) {
        // A path grant is relative to the repo and follows links: none can cover a path
        // outside it, or one whose link leads outside or nowhere known — not offered.
        decision
            .offered_scopes
            .retain(|s| *s != ScopeKind::PathPattern);
    }
    let hash = action_hash(&canonical);
    let batch_key = batch_key(request, &decision, &hash, review.batch_fingerprint());
    let risk_input = risk_input(request, &facts, &decision, ctx.trusted);
    let mut evidence =
        crate::evidence::build::build(request, &canonical, &decision, &facts, &ctx, hidden_text);
    review.fill(
        &mut evidence,
        &crate::evidence::build::place(request, &canonical.cwd),
    );
    let mut evaluation = Evaluation {
        canonical,
        action_hash: hash,
        risk_input,
        decision,
        batch_key,
        policy_version: policy.version().to_owned(),
        evidence,
        rules,
        exceptionable,
        quick_decisions: Vec::new(),
    };
    crate::capability::eval::shape(capability, request, &mut evaluation);
    if let Some(outcome) = exception {
        crate::exception::eval::shape(request, outcome, &mut evaluation);
    }
    evaluation.evidence = crate::evidence::mask::masked(evaluation.evidence);
    evaluation.quick_decisions = offer::offer(policy, request, capability, &evaluation.decision);
    Ok(evaluation)
}

/// An edit's text and a diff are bounded like every other part of a request.
fn check_edit(request: &ActionRequest) -> Result<(), CanonError> {
    crate::diff::review::check_size(request)?;
    let ancestors = &request.context.head_ancestors;
    if ancestors.len() > crate::request::MAX_HEAD_ANCESTORS {
        return Err(CanonError::TooLarge {
            what: "head_ancestors",
            size: ancestors.len(),
            limit: crate::request::MAX_HEAD_ANCESTORS,
        });
    }
    if let Some(long) = ancestors.iter().find(|sha| sha.len() > 64) {
        return Err(CanonError::TooLarge {
            what: "a head_ancestors commit id",
            size: long.len(),
            limit: 64,
        });
    }
    let Some(edit) = &request.context.edit else {
        return Ok(());
    };
    let longest = edit.new.len().max(edit.old.as_ref().map_or(0, String::len));
    if longest > MAX_EDIT_BYTES {
        return Err(CanonError::TooLarge {
            what: "the edit",
            size: longest,
            limit: MAX_EDIT_BYTES,
        });
    }
    Ok(())
}

/// The repository root: the request's absolute repo path, else the cwd.
fn repo_root(request: &ActionRequest, cwd: &str, home: &str) -> String {
    match request.context.repo.as_deref() {
        Some(repo) if repo.starts_with('/') => normalize(repo, "/", home),
        _ => cwd.to_owned(),
    }
}

/// The policy decides trust; a request may only lower it.
fn is_trusted(policy: &Policy, request: &ActionRequest, home: &str) -> bool {
    if request.context.repo_trust == Some(RepoTrust::Untrusted) {
        return false;
    }
    let Some(repo) = request.context.repo.as_deref() else {
        return false;
    };
    let set = &policy.compiled.trusted;
    set.is_match(repo) || (repo.starts_with('/') && set.is_match(normalize(repo, "/", home)))
}

/// Hidden characters, analysis-only runs and high-risk tasks.
fn context_verdicts(request: &ActionRequest, hidden_text: bool, facts: &Facts) -> Vec<Verdict> {
    let mut out = Vec::new();
    if hidden_text {
        out.push(Verdict::ask("ask.suspicious_text", RiskLevel::High, "the action carries NUL, control, bidi or zero-width characters that can hide what runs"));
    }
    let changes = facts.command_risk > CommandRisk::Readonly;
    if changes && request.context.run_mode == Some(RunMode::Analysis) {
        out.push(Verdict::ask(
            "ask.analysis_mode",
            RiskLevel::Medium,
            "the run is in analysis mode, which only reads",
        ));
    }
    if changes
        && request
            .context
            .task_risk
            .is_some_and(|r| r >= RiskLevel::High)
    {
        out.push(Verdict::ask(
            "ask.high_risk_task",
            RiskLevel::High,
            "the task is marked high risk",
        ));
    }
    out
}

fn suspicious(request: &ActionRequest, canonical: &CanonicalAction) -> bool {
    let action = &request.action;
    action.command.as_deref().is_some_and(has_suspicious_chars)
        || canonical
            .commands
            .iter()
            .flatten()
            .any(|w| has_suspicious_chars(w))
        || action
            .paths
            .iter()
            .chain(&action.network)
            .any(|s| has_suspicious_chars(s))
        || action.tool.as_deref().is_some_and(has_suspicious_chars)
}

/// Reorders stand-alone flags of commands whose profile says order does not matter.
fn normalize_profile_flags(policy: &Policy, script: &ShellScript, canonical: &mut CanonicalAction) {
    for (parsed, words) in script.commands.iter().zip(canonical.commands.iter_mut()) {
        let eff = effective(&parsed.argv);
        let unordered = match_profile(policy, eff.argv).is_some_and(|p| p.unordered_flags);
        if unordered && parsed.assignments.is_empty() {
            let mut normalized = normalize_flags(&parsed.argv);
            normalized.extend(parsed.redirect_words.iter().cloned());
            *words = normalized;
        }
    }
}

fn risk_input(
    request: &ActionRequest,
    facts: &Facts,
    decision: &RiskDecision,
    trusted: bool,
) -> ActionRiskInput {
    let repo_trust = match request.context.repo_trust {
        Some(RepoTrust::Untrusted) => RepoTrust::Untrusted,
        _ if trusted => RepoTrust::Trusted,
        _ => RepoTrust::Unknown,
    };
    ActionRiskInput {
        action_kind: request.action.kind,
        run_mode: request.context.run_mode.unwrap_or_default(),
        repo_trust,
        path_risk: facts.path_risk,
        command_risk: facts.command_risk,
        network_risk: facts.network_risk,
        credential_risk: facts.credential_risk,
        diff_risk: diff_risk(facts),
        task_risk: request.context.task_risk.unwrap_or(RiskLevel::Low),
        policy_findings: if decision.decision == crate::types::Decision::Auto {
            Vec::new()
        } else {
            decision.reasons.clone()
        },
    }
}

/// How much the action may change, from what the request says (no diff is seen): `wide` for
/// destructive commands and CI/security configuration, `small` for anything that only reads
/// or builds, else by the number of paths it names (a manifest or lockfile is at least
/// `medium`): up to 3 `small`, up to 20 `medium`, more `large`.
fn diff_risk(facts: &Facts) -> DiffRisk {
    if facts.command_risk == CommandRisk::Destructive || facts.path_risk >= PathRisk::Ci {
        return DiffRisk::Wide;
    }
    if facts.command_risk < CommandRisk::Mutation {
        return DiffRisk::Small;
    }
    match facts.paths.len() {
        0..=3 if facts.path_risk < PathRisk::Generated => DiffRisk::Small,
        0..=20 => DiffRisk::Medium,
        _ => DiffRisk::Large,
    }
}
