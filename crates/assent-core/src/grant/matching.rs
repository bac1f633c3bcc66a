//! Grant matching: does a grant cover an action.

use chrono::{DateTime, Utc};

use crate::evaluate::evaluation::Evaluation;
use crate::grant::{ApprovalGrant, GrantConstraints, GrantStatus, NotCovered};
use crate::paths::{normalize, relative_to};
use crate::request::canon::CanonicalAction;
use crate::request::ActionRequest;
use crate::types::{Decision, ScopeKind};

/// The values of a request that move with the repository and the change: compared with a
/// grant's bound action hash, batch key, base commit and diff fingerprint. As submitted for
/// [`covers`]; as the request would be at the grant's base commit and diff when asking
/// whether it is the grant's action moved ([`ApprovalGrant::moved_by`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moving<'a> {
    pub action_hash: &'a str,
    pub batch_key: &'a str,
    pub base_sha: Option<&'a str>,
    pub diff_fingerprint: Option<&'a str>,
}

impl<'a> Moving<'a> {
    /// The values as submitted.
    pub fn of(request: &'a ActionRequest, eval: &'a Evaluation) -> Moving<'a> {
        Moving {
            action_hash: &eval.action_hash,
            batch_key: &eval.batch_key,
            base_sha: request.context.base_sha.as_deref(),
            diff_fingerprint: request.context.diff_fingerprint.as_deref(),
        }
    }
}

impl ApprovalGrant {
    /// Whether this grant lets `request` (evaluated as `eval`) run at `now`.
    pub fn covers(
        &self,
        request: &ActionRequest,
        eval: &Evaluation,
        now: DateTime<Utc>,
    ) -> Result<(), NotCovered> {
        covers(self, request, eval, now)
    }
}

/// See [`ApprovalGrant::covers`].
pub fn covers(
    grant: &ApprovalGrant,
    request: &ActionRequest,
    eval: &Evaluation,
    now: DateTime<Utc>,
) -> Result<(), NotCovered> {
    covers_as(grant, request, eval, Moving::of(request, eval), now)
}

/// [`covers`], comparing the bound moving values with `moving`.
pub(crate) fn covers_as(
    grant: &ApprovalGrant,
    request: &ActionRequest,
    eval: &Evaluation,
    moving: Moving<'_>,
    now: DateTime<Utc>,
) -> Result<(), NotCovered> {
    let exception = grant.scope_kind == ScopeKind::Exception;
    if eval.decision.decision == Decision::Block && !(exception && eval.exceptionable) {
        return Err(NotCovered::Blocked);
    }
    match grant.status(now) {
        GrantStatus::Active => {}
        GrantStatus::Expired => return Err(NotCovered::Expired),
        GrantStatus::Revoked => return Err(NotCovered::Revoked),
        GrantStatus::Exhausted => return Err(NotCovered::Exhausted),
        GrantStatus::Invalidated => return Err(NotCovered::Invalidated),
    }
    if grant.policy_version != eval.policy_version {
        return Err(NotCovered::PolicyChanged);
    }
    if !grant.action_kinds.contains(&request.action.kind) {
        return Err(NotCovered::Mismatch("this kind of action"));
    }
    let c = &grant.constraints;
    let required = |scope: ScopeKind, set: bool, what: &'static str| {
        if grant.scope_kind == scope && !set {
            Err(NotCovered::Mismatch(what))
        } else {
            Ok(())
        }
    };
    required(
        ScopeKind::Once,
        c.action_hash.is_some(),
        "this exact action",
    )?;
    required(ScopeKind::Run, c.run_id.is_some(), "this run")?;
    required(
        ScopeKind::CommandProfile,
        c.profile.is_some(),
        "this command profile",
    )?;
    required(
        ScopeKind::PathPattern,
        !c.path_patterns.is_empty(),
        "these paths",
    )?;
    required(ScopeKind::TaskType, c.task_type.is_some(), "this task type")?;
    required(ScopeKind::Repo, c.repo.is_some(), "this repository")?;
    required(
        ScopeKind::Exception,
        c.repo.is_some() && !c.exception_rules.is_empty(),
        "this exception",
    )?;
    if exception && !eval.rules.iter().all(|r| c.exception_rules.contains(r)) {
        return Err(NotCovered::Mismatch(
            "rules this exception does not set aside",
        ));
    }
    if exception && !c.hosts.is_empty() && !reaches_only(&c.hosts, &eval.evidence.network) {
        return Err(NotCovered::Mismatch("hosts this exception does not name"));
    }
    if grant.scope_kind == ScopeKind::Org {
        return Err(NotCovered::Mismatch(
            "anything: org grants are not honoured",
        ));
    }
    bound_fields(c, request, eval, moving)?;
    if !c.path_patterns.is_empty() {
        paths_match(&c.path_patterns, request, eval)?;
    }
    Ok(())
}

/// Whether `targets` (an action's network targets) reach at least one host, and only `hosts`.
fn reaches_only(hosts: &[String], targets: &[String]) -> bool {
    !targets.is_empty()
        && targets
            .iter()
            .all(|t| hosts.contains(&crate::classify::verdict::host_of(t)))
}

fn bound_fields(
    c: &GrantConstraints,
    request: &ActionRequest,
    eval: &Evaluation,
    moving: Moving<'_>,
) -> Result<(), NotCovered> {
    let differs = |bound: &Option<String>, actual: Option<&str>| {
        bound.as_deref().is_some_and(|b| Some(b) != actual)
    };
    let ctx = &request.context;
    let checks: [(bool, &'static str); 9] = [
        (
            differs(&c.action_hash, Some(moving.action_hash)),
            "this exact action",
        ),
        (
            differs(&c.batch_key, Some(moving.batch_key)),
            "this kind of request",
        ),
        (differs(&c.run_id, Some(&request.run_id)), "this run"),
        (
            differs(&c.profile, eval.decision.profile.as_deref()),
            "this command profile",
        ),
        (differs(&c.repo, ctx.repo.as_deref()), "this repository"),
        (differs(&c.base_sha, moving.base_sha), "this base commit"),
        (
            differs(&c.diff_fingerprint, moving.diff_fingerprint),
            "this diff",
        ),
        (
            differs(&c.task_type, ctx.task_type.as_deref()),
            "this task type",
        ),
        (
            c.profile.is_some() && eval.decision.profile.is_none(),
            "an action outside the profile",
        ),
    ];
    match checks.iter().find(|(failed, _)| *failed) {
        Some((_, what)) => Err(NotCovered::Mismatch(what)),
        None => Ok(()),
    }
}

/// The root path patterns are relative to: the request's repo, else the action's cwd.
fn pattern_root(request: &ActionRequest, canonical: &CanonicalAction) -> String {
    match request.context.repo.as_deref() {
        Some(repo) if repo.starts_with('/') => normalize(repo, "/", "/"),
        _ => canonical.cwd.clone(),
    }
}

/// "These paths": the action's own paths as literal patterns relative to the repo root —
/// what a path-pattern grant is bound to when the person names no patterns. `None` when
/// the action has no paths, runs commands, or touches a path outside the repository (a
/// path grant could never cover it, so none is offered).
pub(crate) fn action_path_patterns(
    request: &ActionRequest,
    canonical: &CanonicalAction,
) -> Option<Vec<String>> {
    if canonical.paths.is_empty() || !canonical.commands.is_empty() {
        return None;
    }
    let root = pattern_root(request, canonical);
    let mut out = Vec::with_capacity(canonical.paths.len());
    for path in &canonical.paths {
        let rel = relative_to(path, &root).filter(|r| !r.is_empty())?;
        let literal = globset::escape(rel);
        if !out.contains(&literal) {
            out.push(literal);
        }
    }
    Some(out)
}

/// Every path of the action must fall under a pattern, relative to the repo root, with
/// hidden files (`.env`, `.git/…`) only covered when a pattern names them. A path that is a
/// symlink is covered only when where it really leads is covered too; one whose real path
/// is unknown never is.
fn paths_match(
    patterns: &[String],
    request: &ActionRequest,
    eval: &Evaluation,
) -> Result<(), NotCovered> {
    let root = pattern_root(request, &eval.canonical);
    if eval.canonical.paths.is_empty() || !eval.canonical.commands.is_empty() {
        return Err(NotCovered::Mismatch("these paths"));
    }
    let set = crate::policy::glob::glob_set(patterns, true)
        .map_err(|_| NotCovered::Mismatch("these paths"))?;
    let covered = |path: &str| {
        let rel = relative_to(path, &root)
            .filter(|r| !r.is_empty())
            .ok_or(NotCovered::Mismatch("paths outside the repository"))?;
        let hidden_ok = rel
            .split('/')
            .filter(|seg| seg.starts_with('.'))
            .all(|seg| patterns.iter().any(|p| p.split('/').any(|ps| ps == seg)));
        if hidden_ok && set.is_match(rel) {
            Ok(())
        } else {
            Err(NotCovered::Mismatch("these paths"))
        }
    };
    for path in &eval.canonical.paths {
        covered(path)?;
        let link = eval.canonical.real_paths.iter().find(|l| &l.path == path);
        match link.map(|l| l.real.as_deref()) {
            None => {}
            Some(None) => return Err(NotCovered::Mismatch("paths whose real location is unknown")),
            Some(Some(real)) => covered(real)?,
        }
    }
    Ok(())
}
