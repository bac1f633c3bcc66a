//! What a prompt's notification says and which buttons it offers. Pure: no D-Bus here.

use assent_core::{
    may_decide, ActionKind, ApprovalStatus, Decidable, Decision, EvidenceDetail, Identity, Refusal,
    RiskLevel, Role, ScopeKind,
};
use assent_protocol::{Approval, ApprovalReview, Me, ReviewState};

use assent_protocol::words::{headline, MAX_SUMMARY_ACTION};

use crate::prompt_packet::packet_lines;
use crate::text::{fit_words, has_hidden_chars, untrusted};

/// Longest command shown whole; a longer one gets "Open" only.
pub const MAX_COMMAND_CHARS: usize = 160;
const MAX_SUMMARY_PART: usize = 40;
const MAX_REASON_CHARS: usize = 80;
/// The reviewer's line in a notification body: one line, its rationale cut short.
pub(crate) const MAX_REVIEW_CHARS: usize = 120;
const MAX_PATHS_SHOWN: usize = 3;

/// A button of a notification; `Open` is the body click (the freedesktop `default` action).
/// `Deny` asks why first: it raises the "why deny?" notification, whose buttons deny with one
/// of the person's reasons (`DenyWith`, by its place in [`PromptNotice::reasons`]) or with
/// none given (`DenyPlain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PromptAction {
    Open,
    AllowForRun,
    AllowOnce,
    Deny,
    DenyWith(u8),
    DenyPlain,
}

/// How many of the person's deny reasons a "why deny?" notification offers: with "Just deny"
/// that is three buttons, what GNOME Shell and KDE show.
pub const REASONS_SHOWN: usize = 2;
const REASON_KEYS: [&str; REASONS_SHOWN] = ["deny-reason-1", "deny-reason-2"];
const MAX_REASON_LABEL: usize = 32;

impl PromptAction {
    /// The action key sent in `Notify` and received in `ActionInvoked`.
    pub fn key(self) -> &'static str {
        match self {
            PromptAction::Open => "default",
            PromptAction::AllowForRun => "allow-run",
            PromptAction::AllowOnce => "allow-once",
            PromptAction::Deny => "deny",
            PromptAction::DenyWith(i) => REASON_KEYS
                .get(usize::from(i))
                .copied()
                .unwrap_or("deny-plain"),
            PromptAction::DenyPlain => "deny-plain",
        }
    }

    /// The button's label; a reason's is the reason itself ([`PromptNotice::label`]).
    pub fn label(self) -> &'static str {
        match self {
            PromptAction::Open => "Open",
            PromptAction::AllowForRun => "Allow for this run",
            PromptAction::AllowOnce => "Allow once",
            PromptAction::Deny => "Deny…",
            PromptAction::DenyWith(_) => "Deny",
            PromptAction::DenyPlain => "Just deny",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        let reasons = (0..REASONS_SHOWN).map(|i| Self::DenyWith(i as u8));
        [
            Self::Open,
            Self::AllowForRun,
            Self::AllowOnce,
            Self::Deny,
            Self::DenyPlain,
        ]
        .into_iter()
        .chain(reasons)
        .find(|action| action.key() == key)
    }

    /// Whether this button denies (at once, or once a reason is picked).
    pub fn denies(self) -> bool {
        matches!(
            self,
            PromptAction::Deny | PromptAction::DenyWith(_) | PromptAction::DenyPlain
        )
    }
}

/// Freedesktop urgency levels (the `urgency` hint byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    Low = 0,
    Normal = 1,
    Critical = 2,
}

impl From<RiskLevel> for Urgency {
    fn from(risk: RiskLevel) -> Self {
        match risk {
            RiskLevel::Low => Urgency::Low,
            RiskLevel::Medium => Urgency::Normal,
            RiskLevel::High | RiskLevel::Critical => Urgency::Critical,
        }
    }
}

/// Why a prompt may only be opened in the window, never approved from the notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenOnly {
    /// The service has not said yet who this desk signs in as (`GET /v1/me`).
    WhoUnknown,
    /// The desk holds an agent's token: agents never decide.
    NotAPerson,
    /// This person requested the action; someone else must decide it.
    OwnRequest,
    /// The prompt needs a role this person does not hold.
    MissingRole(Role),
    /// This person holds no role, so decides nothing.
    NoRole,
    /// This person approved already; `missing` more people must.
    AlreadyApproved { missing: u32 },
    /// The command is too long to show whole.
    CommandTooLong,
    /// The command carries control, bidi or zero-width characters.
    HiddenCharacters,
    /// Riskier than the policy lets a person approve in one act (`[desk] quick_up_to`): it is
    /// decided in the window, with a confirmation naming what is granted.
    Deliberate(RiskLevel),
    /// The policy's `[approvals] step_up` asks a passkey made for this approval: only the web
    /// desk in a browser can approve it, and a press opens it there.
    StepUp,
}

/// The text and buttons of one prompt's notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptNotice {
    pub summary: String,
    pub body: String,
    pub actions: Vec<PromptAction>,
    pub urgency: Urgency,
    /// The deny reasons the `DenyWith` buttons stand for, in order (cleaned for display).
    pub reasons: Vec<String>,
}

impl PromptNotice {
    /// The label of a button of this notice: a reason button shows its reason.
    pub fn label(&self, action: PromptAction) -> &str {
        match action {
            PromptAction::DenyWith(i) => self
                .reasons
                .get(usize::from(i))
                .map_or(action.label(), String::as_str),
            other => other.label(),
        }
    }
}

/// The notification for a pending prompt, or `None` when it must not prompt (settled, or
/// blocked: blocked actions are never offered for approval). `me` is who the service says
/// this desk signs in as.
pub fn notice(approval: &Approval, me: Option<&Me>) -> Option<PromptNotice> {
    if approval.status != ApprovalStatus::Requested
        || approval.facts.decision == Decision::Block
        || held_by_reviewer(approval)
    {
        return None;
    }
    let open_only = open_only(approval, me);
    let actions = match open_only {
        // Approving takes the window (or the browser), but saying no never needs more than
        // the risk and the reasons the notification shows: Deny stays, and asks why.
        Some(why) if deny_here(why) => vec![PromptAction::Open, PromptAction::Deny],
        Some(_) => vec![PromptAction::Open],
        None => decision_actions(&approval.facts.offered_scopes),
    };
    Some(PromptNotice {
        summary: summary(approval, &actions, open_only),
        body: body(approval, open_only),
        actions,
        urgency: urgency(approval),
        reasons: Vec::new(),
    })
}

/// Whether the model reviewer is still reviewing a prompt it may approve alone: no person is
/// asked yet, so no notification. The service announces its next state (an opinion, a
/// failure, not eligible) with `approval.updated`, and the prompt is notified then.
pub fn held_by_reviewer(approval: &Approval) -> bool {
    approval
        .review
        .as_ref()
        .is_some_and(|r| r.state == ReviewState::Reviewing)
}

/// The reviewer's part in one line, clearly a model's ("Reviewer (qwen3:8b): would approve —
/// …"); its rationale is the model's text, so untrusted: masked, escaped, cut short.
pub fn review_line(review: &ApprovalReview) -> String {
    let why = review.rationale.trim();
    let line = match review.state {
        ReviewState::Reviewing => format!("Reviewer ({}) is reviewing…", review.model),
        ReviewState::Approved => format!("Reviewer ({}) approved this alone — {why}", review.model),
        ReviewState::Advised => match review.outcome.as_deref() {
            // Advise mode: `advised` with no verdict while the call is under way.
            None => format!("Reviewer ({}) is reviewing…", review.model),
            Some("approve") => format!("Reviewer ({}): would approve — {why}", review.model),
            Some("ask_person") => format!("Reviewer ({}): would ask you — {why}", review.model),
            Some(_) => format!("Reviewer ({}): gave no verdict — {why}", review.model),
        },
        ReviewState::Failed if review.reviewer_unavailable => {
            format!(
                "Reviewer ({}) unavailable: asking you — {why}",
                review.model
            )
        }
        ReviewState::Failed => format!("Reviewer ({}) failed: {why} — asking you", review.model),
        ReviewState::NotEligible => {
            format!("Reviewer ({}) may not decide this: {why}", review.model)
        }
    };
    untrusted(&line.replace(['\n', '\r'], " "), MAX_REVIEW_CHARS)
}

/// Whether a prompt that must be approved elsewhere may still be denied from the notification:
/// when this person may decide it (the service would take the denial) and only the approval
/// needs more — a confirm step, a passkey, or the whole command, which the window shows.
fn deny_here(why: OpenOnly) -> bool {
    matches!(
        why,
        OpenOnly::Deliberate(_)
            | OpenOnly::StepUp
            | OpenOnly::CommandTooLong
            | OpenOnly::HiddenCharacters
    )
}

/// How urgent a prompt's notification is: by its risk, but never low while an agent may be
/// blocked on it (one waits, or none has stopped waiting yet — events count no waiters, so a
/// fresh prompt counts as waited on): a low-urgency notification shows no banner on most
/// desktops, and the agent would wait on a prompt nobody saw.
pub fn urgency(approval: &Approval) -> Urgency {
    let blocked = approval.agents_waiting > 0 || approval.agents_stopped_waiting_at.is_none();
    match Urgency::from(approval.facts.risk) {
        Urgency::Low if blocked => Urgency::Normal,
        by_risk => by_risk,
    }
}

/// The "why deny?" notification a press of Deny raises: the person picks one of their first
/// [`REASONS_SHOWN`] deny reasons (Settings), which the agent is told so it can try another
/// way, or "Just deny". Closing it decides nothing: the prompt stays in the window and tray.
pub fn why_notice(approval: &Approval, reasons: &[String]) -> PromptNotice {
    let what = untrusted(
        &fit_words(&headline(approval), MAX_SUMMARY_ACTION),
        MAX_SUMMARY_ACTION,
    );
    let place = at_place(approval);
    let reasons: Vec<String> = reasons
        .iter()
        .take(REASONS_SHOWN)
        .map(|reason| untrusted(&capitalised(reason), MAX_REASON_LABEL))
        .collect();
    let mut actions = vec![PromptAction::Open];
    actions.extend((0..reasons.len()).map(|i| PromptAction::DenyWith(i as u8)));
    actions.push(PromptAction::DenyPlain);
    PromptNotice {
        summary: format!("Why deny? {what}{place}"),
        body: "The agent is told the reason you pick, so it can try another way. \
               Close this to decide later in Assent."
            .to_owned(),
        actions,
        urgency: urgency(approval),
        reasons,
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The notification for a button click that did not go through (the service refused it, or
/// the prompt was gone): what was not decided and why, in the service's words — so a failed
/// click is never only a log line. It has no buttons.
pub fn refused_notice(
    approval: Option<&Approval>,
    action: PromptAction,
    message: &str,
) -> PromptNotice {
    let what = approval.map_or_else(
        || "a prompt".to_owned(),
        |approval| {
            format!(
                "{}{}",
                untrusted(&subject(approval), MAX_SUMMARY_PART),
                at_place(approval)
            )
        },
    );
    PromptNotice {
        summary: format!("{} failed: {what}", refused_label(action)),
        body: untrusted(message, MAX_COMMAND_CHARS * 2),
        actions: Vec::new(),
        urgency: Urgency::Normal,
        reasons: Vec::new(),
    }
}

/// A button by what it does ("Deny", whichever deny button it was).
fn refused_label(action: PromptAction) -> &'static str {
    if action.denies() {
        "Deny"
    } else {
        action.label()
    }
}

/// The buttons a prompt offers when it may be decided from the notification, narrowest first
/// (as the window orders them): once, then this run.
fn decision_actions(offered: &[ScopeKind]) -> Vec<PromptAction> {
    let mut actions = vec![PromptAction::Open];
    if offered.contains(&ScopeKind::Once) {
        actions.push(PromptAction::AllowOnce);
    }
    if offered.contains(&ScopeKind::Run) {
        actions.push(PromptAction::AllowForRun);
    }
    actions.push(PromptAction::Deny);
    actions
}

/// Whether the prompt must be reviewed in the window (and why).
pub fn open_only(approval: &Approval, me: Option<&Me>) -> Option<OpenOnly> {
    if let Some(why) = not_mine(approval, me) {
        return Some(why);
    }
    let evidence = &approval.evidence;
    let argv_hidden = evidence
        .command
        .iter()
        .flatten()
        .any(|arg| has_hidden_chars(arg));
    let members_hidden = approval
        .members
        .iter()
        .filter_map(|member| member.command_line.as_deref())
        .any(has_hidden_chars);
    let line = command_line(approval);
    if evidence.suspicious_text
        || argv_hidden
        || members_hidden
        || line.as_deref().is_some_and(has_hidden_chars)
    {
        return Some(OpenOnly::HiddenCharacters);
    }
    if line.is_some_and(|line| line.chars().count() > MAX_COMMAND_CHARS) {
        return Some(OpenOnly::CommandTooLong);
    }
    if approval.step_up_url.is_some() {
        return Some(OpenOnly::StepUp);
    }
    if !approval.one_act() {
        return Some(OpenOnly::Deliberate(approval.facts.risk));
    }
    None
}

/// Why `me` may not decide `approval` — the service's own rule ([`may_decide`]) on the
/// service's answer to `GET /v1/me`, so no button is offered that the service would refuse
/// (it still enforces them).
fn not_mine(approval: &Approval, me: Option<&Me>) -> Option<OpenOnly> {
    let Some(me) = me else {
        return Some(OpenOnly::WhoUnknown);
    };
    let who = Identity {
        name: me.name.clone(),
        kind: me.kind,
        roles: me.roles.iter().copied().collect(),
    };
    let requesters = [approval.requester.clone()];
    let decidable = Decidable {
        required_role: approval.facts.required_role,
        requesters: &requesters,
    };
    if let Err(refusal) = may_decide(&who, decidable) {
        return Some(match refusal {
            Refusal::Agent => OpenOnly::NotAPerson,
            Refusal::OwnRequest(_) => OpenOnly::OwnRequest,
            Refusal::MissingRole(role, _) => OpenOnly::MissingRole(role),
            Refusal::NoRole(_) => OpenOnly::NoRole,
        });
    }
    if approval.approvals.iter().any(|vote| vote.by == me.name) {
        let have = u32::try_from(approval.approvals.len()).unwrap_or(u32::MAX);
        return Some(OpenOnly::AlreadyApproved {
            missing: approval.required_approvals.saturating_sub(have).max(1),
        });
    }
    None
}

/// The command line as it will run (as written, else its argv quoted as the shell reads it;
/// never joined bare, where `sh -c 'ls; rm x'` would read as two commands).
fn command_line(approval: &Approval) -> Option<String> {
    let evidence = &approval.evidence;
    evidence
        .command_line
        .clone()
        .or_else(|| evidence.command.as_deref().map(assent_core::quoted_argv))
}

/// The question, naming the action: "Install left-pad with npm? · shop", "Allow maven-test
/// for this run? · shop (3 waiting)" (a batch of a profile offered for the run), or
/// "Review: Delete build/ · shop" when it can only be opened.
fn summary(approval: &Approval, actions: &[PromptAction], open_only: Option<OpenOnly>) -> String {
    let place = at_place(approval);
    let waiting = if approval.count > 1 {
        format!(" ({} waiting)", approval.count)
    } else {
        String::new()
    };
    let question = match (&approval.facts.profile, open_only) {
        // Hidden characters are shown nowhere but the window's escaped view.
        (_, Some(OpenOnly::HiddenCharacters)) => {
            "Review: a command with hidden characters".to_owned()
        }
        (_, Some(_)) => format!(
            "Review: {}",
            untrusted(
                &fit_words(&headline(approval), MAX_SUMMARY_ACTION),
                MAX_SUMMARY_ACTION
            )
        ),
        (Some(profile), None) if actions.contains(&PromptAction::AllowForRun) => format!(
            "Allow {} for this run?",
            untrusted(profile, MAX_SUMMARY_PART)
        ),
        (_, None) => format!(
            "{}?",
            untrusted(
                &fit_words(&headline(approval), MAX_SUMMARY_ACTION),
                MAX_SUMMARY_ACTION
            )
        ),
    };
    format!("{question}{place}{waiting}")
}

/// What the prompt is about: the command profile, else the program, else the action kind.
fn subject(approval: &Approval) -> String {
    match &approval.evidence.detail {
        EvidenceDetail::Diff(_) => return "diff".to_owned(),
        EvidenceDetail::Pr(_) => return "PR".to_owned(),
        EvidenceDetail::Credential(packet) => return packet.subject(),
        EvidenceDetail::Exception(packet) => return format!("exception to {}", packet.rule),
        _ => {}
    }
    if let Some(profile) = &approval.facts.profile {
        return profile.clone();
    }
    let program = approval
        .evidence
        .command
        .as_ref()
        .and_then(|argv| argv.first())
        .map(|program| program.rsplit('/').next().unwrap_or(program).to_owned());
    program.unwrap_or_else(|| kind_label(approval.action_kind).to_owned())
}

/// Where: the repository's name (`shop`, not `/tmp/…/src/shop`), else the cwd's last part;
/// `None` for no place (a fleet campaign's cwd is `/`).
fn place(approval: &Approval) -> Option<String> {
    let source = approval.repo.as_deref().unwrap_or(&approval.evidence.cwd);
    let path = source.trim_end_matches('/');
    path.rsplit('/')
        .next()
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// " · shop" after a title, or nothing when there is no place: never a dangling " · ".
fn at_place(approval: &Approval) -> String {
    place(approval)
        .map(|name| format!(" · {}", untrusted(&name, MAX_SUMMARY_PART)))
        .unwrap_or_default()
}

/// Risk and top reasons, then the command or paths, then why it is open-only.
fn body(approval: &Approval, open_only: Option<OpenOnly>) -> String {
    let mut head = format!("{} risk", risk_label(approval.facts.risk));
    for reason in approval.facts.reasons.iter().take(2) {
        head.push_str(" · ");
        head.push_str(&untrusted(reason, MAX_REASON_CHARS));
    }
    let mut lines = vec![head];
    let evidence = &approval.evidence;
    let packet = packet_lines(approval);
    let shown = packet.is_some();
    lines.extend(packet.into_iter().flatten());
    match (command_line(approval), open_only) {
        // A diff or PR approval is about its change: the packet lines say what it is.
        _ if shown => {}
        (Some(_), Some(OpenOnly::HiddenCharacters | OpenOnly::CommandTooLong)) => {}
        (Some(line), _) => {
            lines.push(format!("$ {}", untrusted(&line, MAX_COMMAND_CHARS)));
            // A line of several steps: the riskiest is named on its own, whatever its place.
            if let Some(step) = evidence.steps.first() {
                let effect = step
                    .effect
                    .as_deref()
                    .map(|e| format!(" — {e}"))
                    .unwrap_or_default();
                lines.push(untrusted(
                    &format!(
                        "riskiest of {} steps: {}{effect}",
                        evidence.steps.len(),
                        step.line
                    ),
                    MAX_COMMAND_CHARS,
                ));
            }
        }
        (None, _) if !evidence.paths.is_empty() => lines.push(list_line("paths", &evidence.paths)),
        (None, _) if !evidence.network.is_empty() => lines.push(format!(
            "network: {}",
            untrusted(&evidence.network.join(", "), MAX_COMMAND_CHARS)
        )),
        (None, _) => {}
    }
    if !evidence.symlinks.is_empty() {
        // Where a written path really leads matters more than the name the agent used.
        lines.push(list_line("links", &evidence.symlinks));
    }
    if let Some(review) = &approval.review {
        lines.push(review_line(review));
    }
    if let Some(why) = open_only {
        lines.push(open_only_line(why));
    }
    lines.join("\n")
}

/// The body's last line: why this prompt can only be opened.
pub fn open_only_line(why: OpenOnly) -> String {
    match why {
        OpenOnly::WhoUnknown => {
            "Not yet known who is signed in — open Assent to review.".to_owned()
        }
        OpenOnly::NotAPerson => {
            "This desk holds an agent's token; agents never decide — open Assent.".to_owned()
        }
        OpenOnly::OwnRequest => "You requested this; someone else must decide it.".to_owned(),
        OpenOnly::MissingRole(role) => format!(
            "Needs the {} role — open Assent to review.",
            role_label(role)
        ),
        OpenOnly::NoRole => "You hold no role, so you decide nothing — ask an admin.".to_owned(),
        OpenOnly::AlreadyApproved { missing } => {
            format!("You approved; waiting for {missing} more.")
        }
        OpenOnly::CommandTooLong => {
            "Command too long to show here — open Assent to review.".to_owned()
        }
        OpenOnly::HiddenCharacters => {
            "Command carries hidden or control characters — open Assent to review.".to_owned()
        }
        OpenOnly::Deliberate(risk) => format!(
            "{} risk: no one-click approval — open Assent to review and confirm.",
            risk_label(risk)
        ),
        OpenOnly::StepUp => {
            "Needs your passkey: click to confirm it in the browser's desk.".to_owned()
        }
    }
}

/// `label: a, b, c (+N more)`, each item escaped and shortened.
fn list_line(label: &str, items: &[String]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(MAX_PATHS_SHOWN)
        .map(|item| untrusted(item, MAX_SUMMARY_PART * 2))
        .collect();
    let more = items.len().saturating_sub(MAX_PATHS_SHOWN);
    if more > 0 {
        format!("{label}: {} (+{more} more)", shown.join(", "))
    } else {
        format!("{label}: {}", shown.join(", "))
    }
}

pub fn risk_label(risk: RiskLevel) -> &'static str {
    match risk {
        RiskLevel::Low => "Low",
        RiskLevel::Medium => "Medium",
        RiskLevel::High => "High",
        RiskLevel::Critical => "Critical",
    }
}

pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::TaskAuthor => "task author",
        Role::RepoMaintainer => "repo maintainer",
        Role::SecurityReviewer => "security reviewer",
        Role::PlatformAdmin => "platform admin",
    }
}

fn kind_label(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Shell => "a command",
        ActionKind::FileRead => "a file read",
        ActionKind::FileWrite => "a file write",
        ActionKind::FileDelete => "a file deletion",
        ActionKind::Network => "network access",
        ActionKind::Credential => "a credential",
        ActionKind::Pr => "a pull request",
        ActionKind::Mcp => "an MCP tool",
        ActionKind::Other => "an action",
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "prompt_packet_tests.rs"]
mod packet_tests;
