//! What the policy says about an exception during an evaluation: a request carrying
//! `context.exception` names a rule the command triggers; bad input (an unknown rule, one that
//! does not fire, a lifetime past `max_exception_lifetime`, no repository or reason) is an
//! error, a rule the policy keeps out of exceptions is a block with the reason, and anything
//! else becomes an `exception` approval for a security reviewer.

use serde::Serialize;

use crate::classify::verdict::{host_of, Verdict};
use crate::evaluation::Evaluation;
use crate::evidence::EvidenceDetail;
use crate::exception::{known_rule, ExceptionPacket, NEVER_EXCEPTIONABLE};
use crate::policy::Policy;
use crate::request::ActionRequest;
use crate::text::{one_line, span_days as span};
use crate::types::{Decision, RiskLevel, Role, ScopeKind};

/// An exception request that cannot be evaluated: nothing is recorded, nobody is asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExceptionError {
    #[error("no rule {0:?}: an exception names a rule of the policy (e.g. ask.network, ask.install, block.pipe_to_shell)")]
    UnknownRule(String),
    #[error("{rule} does not fire for this command ({fired}): an exception names a rule the command triggers")]
    NotFired { rule: String, fired: String },
    #[error("the exception's lifetime must be 1 s to {} (the policy's max_exception_lifetime), got {got} s", span(*.max))]
    Lifetime { max: i64, got: i64 },
    #[error("an exception holds in one repository: name it (--repo) or ask from inside it")]
    NoRepo,
    #[error("an exception needs a reason (--reason)")]
    NoReason,
    #[error("an exception's hosts are the hosts the command reaches ({reached}): {problem}")]
    Hosts { reached: String, problem: String },
}

/// What the policy makes of a valid exception request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A security reviewer decides: these rules (the named one first) are set aside.
    Excepted {
        rules: Vec<String>,
        finding: String,
        lifetime_seconds: i64,
        /// The hosts it holds for (lower case, sorted); empty: this one command.
        hosts: Vec<String>,
    },
    /// Refused at once with the reason, never a prompt.
    Refused(String),
}

/// The non-auto rules `verdicts` fire, strongest first, each once.
pub(crate) fn fired(verdicts: &[Verdict]) -> Vec<String> {
    let mut ranked: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| v.decision != Decision::Auto)
        .collect();
    ranked.sort_by_key(|v| std::cmp::Reverse(v.weight()));
    let mut out: Vec<String> = Vec::new();
    for v in ranked {
        if !out.contains(&v.rule) {
            out.push(v.rule.clone());
        }
    }
    out
}

/// Why no exception may set `rule` aside for the command `line`; `None` when one may.
pub(crate) fn refusal(policy: &Policy, rule: &str, line: &str) -> Option<String> {
    let section = &policy.exceptions;
    if NEVER_EXCEPTIONABLE.contains(&rule) {
        return Some(format!(
            "{rule} is never excepted: secrets are used through a capability, and Assent's own \
             files, routes and hooks stay protected"
        ));
    }
    if rule.starts_with("block.") {
        let line = one_line(line);
        let marked = section.exceptionable_blocks.iter().any(|b| {
            b.rule == rule
                && b.matches.as_ref().is_none_or(|glob| {
                    crate::policy::glob::glob_set(std::slice::from_ref(glob), false)
                        .is_ok_and(|set| set.is_match(&line))
                })
        });
        return (!marked).then(|| {
            format!(
                "{rule} is a block the policy does not mark exceptionable for this command \
                 ([exceptions] exceptionable_blocks)"
            )
        });
    }
    section
        .not_exceptionable
        .iter()
        .any(|r| r == rule)
        .then(|| {
            format!("the policy makes {rule} not exceptionable ([exceptions] not_exceptionable)")
        })
}

/// Whether an exception could set aside every rule of `rules` for `line` (so a live exception
/// grant is worth looking for even when the action is blocked).
pub(crate) fn exceptionable(policy: &Policy, rules: &[String], line: &str) -> bool {
    !rules.is_empty() && rules.iter().all(|r| refusal(policy, r, line).is_none())
}

/// Checks the request's exception, if it asks for one.
pub(crate) fn check(
    policy: &Policy,
    request: &ActionRequest,
    verdicts: &[Verdict],
    reached: &[String],
) -> Result<Option<Outcome>, ExceptionError> {
    let Some(ask) = &request.context.exception else {
        return Ok(None);
    };
    let rule = ask.rule.as_str();
    if !known_rule(rule) {
        return Err(ExceptionError::UnknownRule(ask.rule.clone()));
    }
    let max = policy.max_exception_lifetime;
    let lifetime_seconds = ask.lifetime_seconds.unwrap_or(max);
    if !(1..=max).contains(&lifetime_seconds) {
        return Err(ExceptionError::Lifetime {
            max,
            got: lifetime_seconds,
        });
    }
    if request.context.repo.as_deref().is_none_or(str::is_empty) {
        return Err(ExceptionError::NoRepo);
    }
    if request.reason.trim().is_empty() {
        return Err(ExceptionError::NoReason);
    }
    let hosts = held_hosts(&ask.hosts);
    check_hosts(&hosts, reached)?;
    let mut rules = fired(verdicts);
    if !rules.iter().any(|r| r == rule) {
        let fired = if rules.is_empty() {
            "the policy allows it without asking".to_owned()
        } else {
            format!("it triggers {}", rules.join(", "))
        };
        return Err(ExceptionError::NotFired {
            rule: ask.rule.clone(),
            fired,
        });
    }
    rules.retain(|r| r != rule);
    rules.insert(0, rule.to_owned());
    let line = command_line(request);
    if let Some(why) = rules.iter().find_map(|r| refusal(policy, r, &line)) {
        return Ok(Some(Outcome::Refused(format!("no exception: {why}"))));
    }
    let finding = verdicts
        .iter()
        .find(|v| v.rule == rule)
        .map(|v| v.reason.clone())
        .unwrap_or_default();
    Ok(Some(Outcome::Excepted {
        rules,
        finding,
        lifetime_seconds,
        hosts,
    }))
}

/// An exception held by `hosts` (as [`held_hosts`] keeps them) names exactly the hosts the
/// command reaches (`reached`: its network targets): it must cover the command it is asked
/// with, and nothing it did not show.
fn check_hosts(hosts: &[String], reached: &[String]) -> Result<(), ExceptionError> {
    if hosts.is_empty() {
        return Ok(());
    }
    let mut targets: Vec<String> = reached.iter().map(|t| host_of(t)).collect();
    targets.sort();
    targets.dedup();
    let error = |problem: String| ExceptionError::Hosts {
        reached: if targets.is_empty() {
            "none".to_owned()
        } else {
            targets.join(", ")
        },
        problem,
    };
    if targets.is_empty() {
        return Err(error(
            "this command reaches no host, so the exception cannot be held by host".to_owned(),
        ));
    }
    if let Some(unknown) = hosts.iter().find(|h| !targets.contains(h)) {
        return Err(error(format!("it does not reach {unknown:?}")));
    }
    if let Some(missing) = targets.iter().find(|t| !hosts.contains(t)) {
        return Err(error(format!("it also reaches {missing}: name it too")));
    }
    Ok(())
}

/// The hosts of an exception ask as a grant keeps them: lower case, sorted, each once.
fn held_hosts(hosts: &[String]) -> Vec<String> {
    let mut out: Vec<String> = hosts
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Turns the evaluation of an exception request into its answer: a block with the refusal,
/// or an `exception` approval for a security reviewer, offering only the exception scope.
pub(crate) fn shape(request: &ActionRequest, outcome: Outcome, eval: &mut Evaluation) {
    let decision = &mut eval.decision;
    let (rules, finding, lifetime_seconds, hosts) = match outcome {
        Outcome::Refused(why) => {
            decision.decision = Decision::Block;
            decision.rule = "block.not_exceptionable".to_owned();
            decision.reasons.insert(0, why);
            decision.required_role = None;
            decision.offered_scopes.clear();
            return;
        }
        Outcome::Excepted {
            rules,
            finding,
            lifetime_seconds,
            hosts,
        } => (rules, finding, lifetime_seconds, hosts),
    };
    let rule = rules.first().cloned().unwrap_or_default();
    let repo = request.context.repo.clone().unwrap_or_default();
    decision.decision = Decision::Escalate;
    decision.required_role = Some(Role::SecurityReviewer);
    decision.risk = decision.risk.max(RiskLevel::High);
    decision.rule.clone_from(&rule);
    let reach = if hosts.is_empty() {
        String::new()
    } else {
        format!(" reaching {}", hosts.join(", "))
    };
    decision.reasons.insert(
        0,
        format!(
            "an exception to {} for {} in {repo}{reach}, asked because: {}",
            rules.join(", "),
            span(lifetime_seconds),
            request.reason.trim()
        ),
    );
    decision.offered_scopes = vec![ScopeKind::Exception];
    eval.batch_key = batch_key(request, &eval.action_hash, &rules, lifetime_seconds, &hosts);
    let packet = ExceptionPacket {
        rule,
        finding,
        rules,
        lifetime_seconds,
        repo,
        reason: request.reason.trim().to_owned(),
        covered_command: command_line(request),
        hosts,
    };
    eval.evidence.summary = packet.line();
    eval.evidence.detail = EvidenceDetail::Exception(packet);
}

/// The longest a grant for `request` may last: its exception's lifetime when it asks for one,
/// within `max`.
pub fn bound_lifetime(request: &ActionRequest, max: chrono::Duration) -> chrono::Duration {
    match request
        .context
        .exception
        .as_ref()
        .and_then(|e| e.lifetime_seconds)
    {
        Some(seconds) => max.min(chrono::Duration::seconds(seconds)),
        None => max,
    }
}

/// The command line (or the action's paths and hosts when it runs none).
pub(crate) fn command_line(request: &ActionRequest) -> String {
    let action = &request.action;
    action
        .command
        .clone()
        .or_else(|| action.argv.as_ref().map(|argv| argv.join(" ")))
        .or_else(|| action.tool.clone())
        .unwrap_or_else(|| {
            action
                .paths
                .iter()
                .chain(&action.network)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        })
}

#[derive(Serialize)]
struct BatchKey<'a> {
    action_hash: &'a str,
    exception: &'a [String],
    hosts: &'a [String],
    lifetime_seconds: i64,
    reason: &'a str,
    repo: Option<&'a str>,
    run_id: &'a str,
}

fn batch_key(
    request: &ActionRequest,
    action_hash: &str,
    rules: &[String],
    lifetime_seconds: i64,
    hosts: &[String],
) -> String {
    crate::request::canon::sha256_json_hex(&BatchKey {
        action_hash,
        exception: rules,
        hosts,
        lifetime_seconds,
        reason: request.reason.trim(),
        repo: request.context.repo.as_deref(),
        run_id: &request.run_id,
    })
}
