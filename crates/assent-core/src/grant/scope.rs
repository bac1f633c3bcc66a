//! What a grant of a given scope is bound to, decided when the person approves.

use crate::evaluation::Evaluation;
use crate::grant::matching::{action_path_patterns, paths_match, pattern_root};
use crate::grant::{ApprovedAs, GrantConstraints};
use crate::request::ActionRequest;
use crate::types::{Decision, ScopeKind};

/// A scope that cannot be granted for this action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error("blocked actions cannot be approved")]
    Blocked,
    #[error("the action is allowed without approval")]
    NotNeeded,
    #[error("the scope {0:?} is not offered for this action")]
    NotOffered(ScopeKind),
    #[error("a path_pattern grant needs at least one pattern inside the repository")]
    NoPathPatterns,
    #[error("bad path pattern {pattern:?}: {message}")]
    BadPathPattern { pattern: String, message: String },
    #[error("the path patterns must cover the paths of the action being approved")]
    PatternsMissAction,
    #[error("a {0:?} grant needs the request's repo")]
    NoRepo(ScopeKind),
    #[error("a task_type grant needs the request's task_type")]
    NoTaskType,
    #[error("org-wide grants are managed by policy, not approved from a prompt")]
    Org,
}

impl GrantConstraints {
    /// The constraints a grant of `scope` gets for `request` (evaluated as `eval`), asked by
    /// the identity `requester`.
    ///
    /// once → the action hash; run → run + batch key; command_profile → profile (+ repo,
    /// base SHA); path_pattern → globs relative to the repo root (+ repo), or to the action's
    /// directory outside a repository, recorded as the grant's root; the patterns must cover
    /// the action's own paths, which they are when the person names none ("allow these
    /// paths"); task_type and repo → those (+ repo). Every grant but an exception also keeps
    /// the base SHA the action was evaluated at, what was approved ([`ApprovedAs`]: it covers
    /// nothing that asks for more) and the requester (it covers no other agent's requests).
    /// An exception is the repository's, for every run, bound by its own rules and hosts.
    pub fn for_scope(
        scope: ScopeKind,
        request: &ActionRequest,
        eval: &Evaluation,
        requester: &str,
        path_patterns: Option<&[String]>,
    ) -> Result<GrantConstraints, ScopeError> {
        match eval.decision.decision {
            Decision::Block => return Err(ScopeError::Blocked),
            Decision::Auto => return Err(ScopeError::NotNeeded),
            Decision::Ask | Decision::Escalate => {}
        }
        let offered = eval.decision.offered_scopes.contains(&scope);
        let ctx = &request.context;
        let base = GrantConstraints {
            repo: ctx.repo.clone(),
            base_sha: ctx.base_sha.clone(),
            approved: Some(ApprovedAs::of(eval)),
            requester: Some(requester.to_owned()),
            ..GrantConstraints::default()
        };
        let need_offered = |c: GrantConstraints| {
            if offered {
                Ok(c)
            } else {
                Err(ScopeError::NotOffered(scope))
            }
        };
        match scope {
            ScopeKind::Once => need_offered(GrantConstraints {
                action_hash: Some(eval.action_hash.clone()),
                diff_fingerprint: ctx.diff_fingerprint.clone(),
                ..base
            }),
            ScopeKind::Run => need_offered(GrantConstraints {
                run_id: Some(request.run_id.clone()),
                batch_key: Some(eval.batch_key.clone()),
                profile: eval.decision.profile.clone(),
                ..base
            }),
            ScopeKind::CommandProfile => need_offered(GrantConstraints {
                profile: eval.decision.profile.clone(),
                ..base
            }),
            ScopeKind::PathPattern => {
                let patterns = match path_patterns {
                    None => action_path_patterns(request, &eval.canonical)
                        .ok_or(ScopeError::NoPathPatterns)?,
                    Some([]) => return Err(ScopeError::NoPathPatterns),
                    Some(p) => p.to_vec(),
                };
                for p in &patterns {
                    check_pattern(p)?;
                }
                // Relative to where the person approved, whatever the next request's cwd.
                let root = pattern_root(request, &eval.canonical);
                paths_match(&patterns, &root, &eval.canonical)
                    .map_err(|_| ScopeError::PatternsMissAction)?;
                need_offered(GrantConstraints {
                    path_patterns: patterns,
                    root: Some(root),
                    ..base
                })
            }
            ScopeKind::TaskType => {
                let task_type = ctx.task_type.clone().ok_or(ScopeError::NoTaskType)?;
                ctx.repo.as_ref().ok_or(ScopeError::NoRepo(scope))?;
                Ok(GrantConstraints {
                    task_type: Some(task_type),
                    ..base
                })
            }
            ScopeKind::Repo => {
                ctx.repo.as_ref().ok_or(ScopeError::NoRepo(scope))?;
                Ok(base)
            }
            ScopeKind::Org => Err(ScopeError::Org),
            ScopeKind::Exception => {
                let crate::evidence::EvidenceDetail::Exception(packet) = &eval.evidence.detail
                else {
                    return Err(ScopeError::NotOffered(scope));
                };
                ctx.repo.as_ref().ok_or(ScopeError::NoRepo(scope))?;
                // Every run in the repository, for weeks: not bound to a run or a commit; held
                // by host, not bound to the command either.
                let (action_hash, profile) = match &eval.decision.profile {
                    _ if !packet.hosts.is_empty() => (None, None),
                    Some(profile) => (None, Some(profile.clone())),
                    None => (Some(eval.action_hash.clone()), None),
                };
                need_offered(GrantConstraints {
                    repo: ctx.repo.clone(),
                    action_hash,
                    profile,
                    exception_rules: packet.rules.clone(),
                    hosts: packet.hosts.clone(),
                    ..GrantConstraints::default()
                })
            }
        }
    }
}

/// Path patterns are relative to the repo root and never climb out of it.
fn check_pattern(pattern: &str) -> Result<(), ScopeError> {
    let bad = |message: &str| {
        Err(ScopeError::BadPathPattern {
            pattern: pattern.to_owned(),
            message: message.to_owned(),
        })
    };
    if pattern.starts_with('/') || pattern.starts_with('~') {
        return bad("must be relative to the repository root");
    }
    if pattern.split('/').any(|seg| seg == ".." || seg == ".") {
        return bad("must not contain `.` or `..` segments");
    }
    if pattern.split('/').all(|seg| seg == "**" || seg == "*") {
        return bad("must name at least one directory or file");
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .or_else(|e| bad(&e.to_string()))
}
