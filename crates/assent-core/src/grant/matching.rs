//! Grant matching: does a grant cover an action.

use chrono::{DateTime, Utc};

use crate::evaluation::Evaluation;
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
    /// Whether this grant lets `request` (evaluated as `eval`), asked by the identity
    /// `requester`, run at `now`.
    pub fn covers(
        &self,
        request: &ActionRequest,
        eval: &Evaluation,
        requester: &str,
        now: DateTime<Utc>,
    ) -> Result<(), NotCovered> {
        covers(self, request, eval, requester, now)
    }
}

/// See [`ApprovalGrant::covers`].
pub fn covers(
    grant: &ApprovalGrant,
    request: &ActionRequest,
    eval: &Evaluation,
    requester: &str,
    now: DateTime<Utc>,
) -> Result<(), NotCovered> {
    let moving = Moving::of(request, eval);
    covers_as(grant, request, eval, requester, moving, now)
}

/// [`covers`], comparing the bound moving values with `moving`.
pub(crate) fn covers_as(
    grant: &ApprovalGrant,
    request: &ActionRequest,
    eval: &Evaluation,
    requester: &str,
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
    if c.requester.as_deref().is_some_and(|r| r != requester) {
        return Err(NotCovered::Mismatch("requests of another agent"));
    }
    bound_fields(c, request, eval, moving)?;
    if !c.path_patterns.is_empty() {
        let root = grant_root(c).ok_or(NotCovered::Mismatch(
            "paths: the grant does not say what its patterns are relative to",
        ))?;
        paths_match(&c.path_patterns, &root, &eval.canonical)?;
    }
    within_approval(grant, eval)
}

/// Whether `eval` asks no more of a person than the action the grant's person approved: the
/// same approval type, no rule beyond its rules, no higher risk, no other required role.
fn within_approval(grant: &ApprovalGrant, eval: &Evaluation) -> Result<(), NotCovered> {
    let Some(approved) = &grant.constraints.approved else {
        // Made before grants recorded what was approved. A once grant is bound to the exact
        // action's hash and an exception to its rules and hosts, so they still cover; any
        // other scope could reach actions the person never saw, so it fails closed.
        return match grant.scope_kind {
            ScopeKind::Once | ScopeKind::Exception => Ok(()),
            _ => Err(NotCovered::Mismatch(
                "anything: it was made before grants recorded what was approved",
            )),
        };
    };
    if eval.approval_type() != approved.approval_type {
        return Err(NotCovered::Mismatch(
            "an action of another approval type than the one approved",
        ));
    }
    if eval.rules.iter().any(|r| !approved.rules.contains(r)) {
        return Err(NotCovered::Mismatch(
            "an action triggering rules the approved one did not",
        ));
    }
    if eval.decision.risk > approved.risk {
        return Err(NotCovered::Mismatch(
            "an action of higher risk than the one approved",
        ));
    }
    if eval
        .decision
        .required_role
        .is_some_and(|role| approved.role != Some(role))
    {
        return Err(NotCovered::Mismatch(
            "an action that needs another role's approval",
        ));
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

/// The root path patterns are relative to when a person approves `request`: its repo, else
/// the action's cwd. A grant records it ([`GrantConstraints::root`]); a later request's own
/// root never counts.
pub(crate) fn pattern_root(request: &ActionRequest, canonical: &CanonicalAction) -> String {
    match request.context.repo.as_deref() {
        Some(repo) if repo.starts_with('/') => normalize(repo, "/", "/"),
        _ => canonical.cwd.clone(),
    }
}

/// The root a grant's path patterns are relative to: the one it recorded, else (a grant made
/// before roots were recorded) its absolute repository, which every request it covers shares.
/// `None` when neither: such a grant covers no path.
fn grant_root(c: &GrantConstraints) -> Option<String> {
    match (&c.root, &c.repo) {
        (Some(root), _) => Some(root.clone()),
        (None, Some(repo)) if repo.starts_with('/') => Some(normalize(repo, "/", "/")),
        _ => None,
    }
}

/// Whether a path grant could cover the action at all: "these paths" exist and cover it
/// (not when a path leads, through a link, outside the root or somewhere unknown). Only then
/// is the path scope offered.
pub(crate) fn own_paths_coverable(request: &ActionRequest, canonical: &CanonicalAction) -> bool {
    action_path_patterns(request, canonical).is_some_and(|patterns| {
        paths_match(&patterns, &pattern_root(request, canonical), canonical).is_ok()
    })
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
    // The same root the grant then records, so "these paths" always cover the action.
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

/// Every path of the action must fall under a pattern, relative to `root` (the repo root),
/// with hidden files (`.env`, `.git/…`) only covered when a pattern names them. A path that is
/// a symlink is covered only when where it really leads is covered too; one whose real path
/// is unknown never is.
pub(crate) fn paths_match(
    patterns: &[String],
    root: &str,
    canonical: &CanonicalAction,
) -> Result<(), NotCovered> {
    if canonical.paths.is_empty() || !canonical.commands.is_empty() {
        return Err(NotCovered::Mismatch("these paths"));
    }
    let set = crate::policy::glob::glob_set(patterns, true)
        .map_err(|_| NotCovered::Mismatch("these paths"))?;
    let covered = |path: &str| {
        let rel = relative_to(path, root)
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
    for path in &canonical.paths {
        covered(path)?;
        let link = canonical.real_paths.iter().find(|l| &l.path == path);
        match link.map(|l| l.real.as_deref()) {
            None => {}
            Some(None) => return Err(NotCovered::Mismatch("paths whose real location is unknown")),
            Some(Some(real)) => covered(real)?,
        }
    }
    Ok(())
}
