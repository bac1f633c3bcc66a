//! What the policy says about capabilities during an evaluation: an agent reading a
//! capability's secret source directly is blocked with the capability to ask for instead; a
//! request to run a command with a capability (`assent exec --capability`) is a credential
//! approval with its own packet, bound to that command and that capability.

use serde::Serialize;

use crate::capability::{Capability, SecretSource, UnknownCapability};
use crate::classify::verdict::{Facts, Verdict};
use crate::evaluation::Evaluation;
use crate::evidence::{CredentialPacket, EvidenceDetail};
use crate::paths::normalize;
use crate::policy::Policy;
use crate::request::canon::CanonicalAction;
use crate::request::ActionRequest;
use crate::shell::wrappers::program_name;
use crate::text::{first_chars_marked, one_line, span};
use crate::types::{ActionKind, CredentialRisk, Decision, RiskLevel, ScopeKind};

/// A capability the policy declares, by its name there.
pub(crate) type Named<'p> = Option<(&'p str, &'p Capability)>;

/// The capability a request asks to use, when it is a capability request: a credential
/// action naming a declared capability, or one carrying a command to run with it. An
/// evaluation looks it up once and hands it to each step below.
pub(crate) fn requested<'p>(
    policy: &'p Policy,
    request: &ActionRequest,
) -> Result<Named<'p>, UnknownCapability> {
    let action = &request.action;
    if action.kind != ActionKind::Credential {
        return Ok(None);
    }
    let Some(name) = action.credential_scope.as_deref() else {
        return Ok(None);
    };
    if let Some((key, capability)) = policy.capabilities.get_key_value(name) {
        return Ok(Some((key.as_str(), capability)));
    }
    let runs_command = action.command.is_some() || action.argv.is_some();
    if runs_command {
        return Err(UnknownCapability {
            name: name.to_owned(),
            declared: policy.capabilities.keys().cloned().collect(),
        });
    }
    Ok(None)
}

/// The verdicts capabilities add to an evaluation: blocks for reads of a secret source, and
/// the capability request's own ask (or escalation to its role).
pub(crate) fn verdicts(
    policy: &Policy,
    asked: Named<'_>,
    request: &ActionRequest,
    canonical: &CanonicalAction,
    facts: &Facts,
    home: &str,
) -> Vec<Verdict> {
    let mut out: Vec<Verdict> = policy
        .capabilities
        .iter()
        .filter(|(name, _)| asked.is_none_or(|(a, _)| a != name.as_str()))
        .filter_map(|(name, cap)| source_read(name, cap, request, canonical, facts, home))
        .collect();
    if let Some((name, cap)) = asked {
        let reason = format!(
            "uses the credential capability {name} ({}) for up to {}",
            reach(cap),
            span(cap.ttl.0)
        );
        out.push(match cap.role {
            Some(role) => Verdict::escalate("escalate.capability", role, reason),
            None => Verdict::ask("ask.capability", risk(cap), reason),
        });
    }
    out
}

/// Turns the evaluation of a capability request into a credential approval: its packet, the
/// capability's role, "once" or "for this run", and a batch key that includes the action
/// hash (which names the capability), so one capability's grant never covers another's.
pub(crate) fn shape(asked: Named<'_>, request: &ActionRequest, eval: &mut Evaluation) {
    let Some((name, cap)) = asked else {
        return;
    };
    let decision = &mut eval.decision;
    if decision.decision == Decision::Block {
        return;
    }
    if decision.required_role.is_none() {
        decision.required_role = cap.role;
    }
    if decision.required_role.is_some() {
        decision.decision = Decision::Escalate;
    } else if decision.decision == Decision::Auto {
        decision.decision = Decision::Ask;
    }
    decision.profile = None;
    decision.offered_scopes = vec![ScopeKind::Once, ScopeKind::Run];
    if !decision.rule.ends_with(".capability") {
        decision.rule = match decision.decision {
            Decision::Escalate => "escalate.capability".to_owned(),
            _ => "ask.capability".to_owned(),
        };
    }
    eval.risk_input.credential_risk = eval.risk_input.credential_risk.max(credential_risk(cap));
    eval.batch_key = batch_key(request, &eval.action_hash, name);
    let command = command_text(request);
    eval.evidence.summary = format!("Use {name} for `{}`", short(&command));
    eval.evidence.credentials = Some(format!("capability {name} (the secret is never shown)"));
    eval.evidence.detail = EvidenceDetail::Credential(CredentialPacket {
        capability: name.to_owned(),
        ttl_seconds: cap.ttl.0,
        hosts: cap.hosts.clone(),
        methods: cap.methods.clone(),
        inject_as: cap.inject_as.clone(),
        reason: request.reason.clone(),
        run_id: request.run_id.clone(),
        agent_visibility: format!(
            "no raw secret: only the approved process gets it as ${}, and its output is masked \
             before the agent sees it",
            cap.inject_as
        ),
    });
}

/// The longest lifetime a grant for `request` may have: the capability's TTL when it is a
/// capability request, within `policy_max`.
pub fn bound_lifetime(
    policy: &Policy,
    request: &ActionRequest,
    policy_max: chrono::Duration,
) -> chrono::Duration {
    bound_by(requested(policy, request).ok().flatten(), policy_max)
}

/// `policy_max`, no longer than the time to live of `asked`, the capability requested.
pub(crate) fn bound_by(asked: Named<'_>, policy_max: chrono::Duration) -> chrono::Duration {
    match asked {
        Some((_, cap)) => policy_max.min(chrono::Duration::seconds(cap.ttl.0)),
        None => policy_max,
    }
}

/// A block when the action reads (or otherwise touches) `cap`'s secret source.
fn source_read(
    name: &str,
    cap: &Capability,
    request: &ActionRequest,
    canonical: &CanonicalAction,
    facts: &Facts,
    home: &str,
) -> Option<Verdict> {
    let text = command_text(request);
    let what = match &cap.source {
        SecretSource::Env(var) => {
            let mentions = mentions_word(&text, var)
                || canonical
                    .commands
                    .iter()
                    .flatten()
                    .any(|w| mentions_word(w, var));
            let dumps = canonical
                .commands
                .iter()
                .any(|words| dumps_environment(words));
            let environ = facts
                .paths
                .iter()
                .chain(&canonical.paths)
                .any(|p| p.starts_with("/proc/") && p.ends_with("/environ"));
            if !(mentions || dumps || environ) {
                return None;
            }
            format!("the environment variable {var}")
        }
        SecretSource::File(path) => {
            let full = normalize(path, "/", home);
            let touches = facts
                .paths
                .iter()
                .chain(&canonical.paths)
                .any(|p| *p == full)
                || text.contains(full.as_str())
                || text.contains(path.as_str());
            if !touches {
                return None;
            }
            path.clone()
        }
        SecretSource::Keyring(item) => {
            let touches = text.contains(item.as_str())
                && ["secret-tool", "keyring", "gnome-keyring"]
                    .iter()
                    .any(|tool| text.contains(tool));
            if !touches {
                return None;
            }
            format!("the keyring item {item}")
        }
    };
    Some(Verdict::block(
        "block.capability_source",
        format!(
            "{what} holds the secret of the credential capability {name}: agents never read it; \
             ask for the capability instead: `assent exec --capability {name} --run RUN -- COMMAND` \
             (the command gets it as ${})",
            cap.inject_as
        ),
    ))
}

/// Whether `text` holds `word` as a whole identifier (`$MAVEN_TOKEN`, `${MAVEN_TOKEN}`,
/// `printenv MAVEN_TOKEN`, `os.environ['MAVEN_TOKEN']`).
fn mentions_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text.get(..at).and_then(|s| s.chars().next_back());
        let after = text.get(at + word.len()..).and_then(|s| s.chars().next());
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// `env`, `printenv`, `export -p`, `declare -x`, `set` with nothing to run: they print the
/// whole environment.
fn dumps_environment(words: &[String]) -> bool {
    let Some((first, args)) = words.split_first() else {
        return false;
    };
    let program = program_name(first);
    if !matches!(program, "env" | "printenv" | "export" | "declare" | "set") {
        return false;
    }
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let redirect = arg.starts_with('>')
            || arg.starts_with('<')
            || arg.starts_with("&>")
            || arg
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('>');
        if redirect {
            if arg
                .trim_start_matches(['&', '>', '<', '0', '1', '2'])
                .is_empty()
            {
                args.next();
            }
            continue;
        }
        if !arg.starts_with('-') {
            return false;
        }
    }
    true
}

fn command_text(request: &ActionRequest) -> String {
    let action = &request.action;
    action
        .command
        .clone()
        .or_else(|| action.argv.as_ref().map(|argv| argv.join(" ")))
        .unwrap_or_default()
}

fn short(line: &str) -> String {
    first_chars_marked(&one_line(line), 80)
}

/// "maven.internal.example.com GET/HEAD", for a reason.
/// The hosts and methods a capability is declared for, said as declared: nothing limits the
/// process that gets the secret to them, so the words never claim "only".
fn reach(cap: &Capability) -> String {
    let hosts = if cap.hosts.is_empty() {
        "any host".to_owned()
    } else {
        cap.hosts.join(", ")
    };
    if cap.methods.is_empty() {
        format!("declared for {hosts}")
    } else {
        format!(
            "declared for {hosts} {}, not enforced",
            cap.methods.join("/")
        )
    }
}

fn read_only(cap: &Capability) -> bool {
    !cap.methods.is_empty()
        && cap
            .methods
            .iter()
            .all(|m| matches!(m.as_str(), "GET" | "HEAD" | "OPTIONS"))
}

fn risk(cap: &Capability) -> RiskLevel {
    if read_only(cap) {
        RiskLevel::Medium
    } else {
        RiskLevel::High
    }
}

fn credential_risk(cap: &Capability) -> CredentialRisk {
    if read_only(cap) {
        CredentialRisk::Readonly
    } else {
        CredentialRisk::Write
    }
}

impl CredentialPacket {
    /// What a one-line notification asks about: "registry.maven.readonly (15 min)" (the
    /// command is on the next line).
    pub fn subject(&self) -> String {
        format!("{} ({})", self.capability, span(self.ttl_seconds))
    }
}

#[derive(Serialize)]
struct BatchKey<'a> {
    action_hash: &'a str,
    base_sha: Option<&'a str>,
    capability: &'a str,
    repo: Option<&'a str>,
    run_id: &'a str,
}

fn batch_key(request: &ActionRequest, action_hash: &str, capability: &str) -> String {
    crate::request::canon::sha256_json_hex(&BatchKey {
        action_hash,
        base_sha: request.context.base_sha.as_deref(),
        capability,
        repo: request.context.repo.as_deref(),
        run_id: &request.run_id,
    })
}
