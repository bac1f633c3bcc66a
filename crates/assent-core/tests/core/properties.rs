//! Property tests: hashing, grant matching and the approval state machine.

use crate::common::*;
use assent_core::{
    ApprovalEvent, ApprovalGrant, ApprovalStatus, Decision, GrantConstraints, GrantIndex, ScopeKind,
};
use chrono::{Duration, TimeZone, Utc};
use proptest::prelude::*;

/// Shell reserved words: unquoted they are syntax, quoted they are words, so their spellings are
/// not equivalent and the property does not apply to them.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc",
];

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_./-]{0,7}".prop_filter("not a shell reserved word", |w| {
        !RESERVED.contains(&w.as_str())
    })
}

/// One word spelled one of several equivalent ways.
fn spell(word: &str, style: u8) -> String {
    match style % 4 {
        0 => word.to_owned(),
        1 => format!("'{word}'"),
        2 => format!("\"{word}\""),
        _ => word.chars().map(|c| format!("\\{c}")).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn equivalent_spellings_hash_the_same(words in prop::collection::vec(word(), 1..6), styles in prop::collection::vec(any::<u8>(), 6), spaces in 1usize..4) {
        let plain = words.join(" ");
        let sep = " ".repeat(spaces);
        let fancy: Vec<String> = words.iter().zip(styles.iter().cycle()).map(|(w, s)| spell(w, *s)).collect();
        let fancy = format!("  {}  ", fancy.join(&sep));
        prop_assert_eq!(hash_of(&plain), hash_of(&fancy), "quoting and spacing must not change the action: {} vs {}", plain, fancy);
    }

    #[test]
    fn different_actions_hash_differently(a in prop::collection::vec(word(), 1..5), b in prop::collection::vec(word(), 1..5)) {
        prop_assume!(a != b);
        prop_assert_ne!(hash_of(&a.join(" ")), hash_of(&b.join(" ")), "a real difference must change the hash");
    }

    #[test]
    fn profile_flag_order_does_not_matter(flags in prop::sample::subsequence(vec!["--release", "--workspace", "--all-features", "--locked", "-q"], 1..5), seed in any::<u64>()) {
        let mut shuffled = flags.clone();
        let n = shuffled.len();
        shuffled.rotate_left((seed as usize) % n);
        if seed % 2 == 0 { shuffled.reverse(); }
        let a = format!("cargo test {}", flags.join(" "));
        let b = format!("cargo test {}", shuffled.join(" "));
        prop_assert_eq!(hash_of(&a), hash_of(&b), "cargo-test says flag order does not matter: {} vs {}", a, b);
    }

    #[test]
    fn the_state_machine_never_approves_a_block(decision in prop::sample::select(vec![Decision::Auto, Decision::Ask, Decision::Escalate, Decision::Block]), events in prop::collection::vec(prop::sample::select(vec![ApprovalEvent::ApproveOnce, ApprovalEvent::ApproveForRun, ApprovalEvent::ApproveForPolicyScope, ApprovalEvent::Deny, ApprovalEvent::Expire, ApprovalEvent::Revoke]), 0..12)) {
        let mut status = ApprovalStatus::initial(decision);
        for event in events {
            let before = status;
            match status.apply(event) {
                Ok(next) => {
                    prop_assert!(!before.is_terminal(), "{:?} is terminal and must not move by {:?}", before, event);
                    prop_assert!(!(next.is_approved() && before != ApprovalStatus::Requested), "approval only comes from requested, not {:?}", before);
                    status = next;
                }
                Err(err) => prop_assert_eq!(err.from, before, "the error names the state it refused to leave"),
            }
            prop_assert!(!(decision == Decision::Block && status.is_approved()), "a blocked action never becomes approved");
            prop_assert!(!(decision == Decision::Auto && status != ApprovalStatus::NotRequired), "not_required stays so");
        }
    }
}

fn grant(
    id: usize,
    scope: ScopeKind,
    constraints: GrantConstraints,
    version: &str,
    expires_in: i64,
    revoked: bool,
    uses: Option<u32>,
) -> ApprovalGrant {
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
    ApprovalGrant {
        grant_id: format!("g{id}"),
        approval_id: format!("a{id}"),
        run_id: "run-1".into(),
        scope_kind: scope,
        action_kinds: vec![assent_core::ActionKind::Shell],
        constraints,
        created_at: now - Duration::minutes(1),
        expires_at: now + Duration::seconds(expires_in),
        max_uses: uses,
        used_count: 1,
        created_by: "dev".into(),
        revocable: true,
        revoked_at: revoked.then_some(now),
        policy_version: version.into(),
        invalidated_at: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn index_agrees_with_a_linear_scan(specs in prop::collection::vec((0usize..4, 0usize..3, -100i64..100, any::<bool>(), prop::option::of(0u32..3), any::<bool>()), 0..24), which in 0usize..3) {
        let lines = ["cargo test", "cargo build", "git push"];
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
        let evals: Vec<_> = lines.iter().map(|l| (shell(l), eval_default(&shell(l)))).collect();
        let version = evals[0].1.policy_version.clone();
        let mut index = GrantIndex::new();
        let mut all = Vec::new();
        for (i, (scope_pick, line_pick, expires, revoked, uses, stale)) in specs.into_iter().enumerate() {
            let (req, ev) = &evals[line_pick];
            let scope = [ScopeKind::Once, ScopeKind::Run, ScopeKind::CommandProfile, ScopeKind::Repo][scope_pick];
            let Ok(c) = GrantConstraints::for_scope(scope, req, ev, AGENT, None) else { continue };
            let g = grant(i, scope, c, if stale { "old" } else { &version }, expires, revoked, uses);
            index.insert(g.clone());
            all.push(g);
        }
        let (req, ev) = &evals[which];
        let linear = all.iter().any(|g| g.covers(req, ev, AGENT, now).is_ok());
        let found = index.find(req, ev, AGENT, now);
        prop_assert_eq!(found.is_some(), linear, "the index finds a covering grant exactly when a scan does");
        if let Some(g) = found {
            prop_assert!(g.expires_at > now && g.revoked_at.is_none() && g.policy_version == version, "a found grant is active and of this policy version");
            if g.scope_kind == ScopeKind::Once {
                prop_assert_eq!(g.constraints.action_hash.as_deref(), Some(ev.action_hash.as_str()), "once binds the exact action");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The parser entry point on hostile text: never an error, never a panic, always reasons,
    /// and never auto when the line carries hidden characters.
    #[test]
    fn any_command_line_gets_an_explained_answer(line in "[a-z ~/.$(){}`'\"\\\\|&;<>=*!#\n\t\u{202e}\u{200b}-]{0,80}") {
        prop_assume!(!line.trim().is_empty()); // an empty command is a malformed request, tested elsewhere
        let e = eval_default(&shell(&line));
        prop_assert!(!e.decision.reasons.is_empty(), "every answer explains itself: {:?}", line);
        prop_assert!(!e.decision.rule.is_empty(), "every answer names its rule");
        if line.contains(['\u{202e}', '\u{200b}']) {
            prop_assert_ne!(e.decision.decision, Decision::Auto, "hidden characters are never auto: {:?}", line);
        }
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "src", "docs", "a.rs", "b", ".env", "..", "out", "x.md",
    ])
    .prop_map(str::to_owned)
}

/// A link target: relative (from the link's directory) or absolute, in or out of the repo.
fn target() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "/etc",
        "/etc/passwd",
        "/home/dev/.ssh/id_rsa",
        "/home/dev/shop/docs",
        "/home/dev/shop/src/a.rs",
        "/home/dev/shop/src",
        "..",
        "../..",
        "../docs/x.md",
        "b",
        "out/../../..",
        "/tmp",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the links, a path-pattern grant covers a path only if where it really leads
    /// falls under the pattern too (checked against the resolver itself, not the core's view).
    #[test]
    fn a_path_pattern_never_covers_a_real_path_outside_it(
        path in prop::collection::vec(segment(), 1..5),
        links in prop::collection::vec((prop::collection::vec(segment(), 1..3), target()), 0..5),
        pattern in prop::sample::select(vec!["src/*", "src/**", "docs/*", "**/*.rs", "src/*.rs", "**"]),
    ) {
        use crate::common::links::FakeLinks;
        use assent_core::{ActionKind, PathResolver};
        let fake = FakeLinks {
            links: links
                .iter()
                .map(|(at, to)| (assent_core::paths::normalize(&at.join("/"), "/home/dev/shop/src", "/"), to.clone()))
                .filter(|(at, _)| at.starts_with("/home/dev/shop/") && at != "/home/dev/shop/src")
                .collect(),
            unreadable: Vec::new(),
        };
        let env = fake.clone().env(HOME);
        let req = file(ActionKind::FileDelete, &path.join("/"));
        let e = eval_in(&env, &req);
        let constraints = GrantConstraints {
            path_patterns: vec![pattern.to_owned()],
            root: Some(REPO.to_owned()),
            approved: Some(assent_core::ApprovedAs::of(&e)),
            ..GrantConstraints::default()
        };
        let mut g = grant(0, ScopeKind::PathPattern, constraints, &e.policy_version, 3600, false, None);
        g.action_kinds = vec![ActionKind::FileDelete];
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
        if g.covers(&req, &e, AGENT, now).is_ok() {
            let set = globset::GlobSetBuilder::new()
                .add(globset::GlobBuilder::new(pattern).literal_separator(true).build().unwrap())
                .build()
                .unwrap();
            for written in &e.canonical.paths {
                let real = fake.real_path(written);
                let rel = real.as_deref().and_then(|r| r.strip_prefix("/home/dev/shop/"));
                prop_assert!(
                    rel.is_some_and(|r| set.is_match(r)),
                    "{written} really leads to {real:?}, outside {pattern}, yet the grant covers it (links {:?})",
                    fake.links
                );
            }
        }
    }
}

/// Actions a person may be asked about, of every kind of approval: plain deletes, deletes of
/// CI, manifest and lock files (a maintainer's diff review), verifier profiles, installs,
/// network, publishing — most under `docs/`, so path grants often reach the later action.
fn asked_action() -> impl Strategy<Value = assent_core::ActionRequest> {
    use assent_core::ActionKind;
    let deletes = prop::sample::select(vec![
        "docs/a.md",
        "docs/b.md",
        "docs/sub/c.md",
        "docs/Makefile",
        "docs/Cargo.lock",
        "docs/package.json",
        "notes/n.md",
        ".github/workflows/release.yml",
    ])
    .prop_map(|p| file(ActionKind::FileDelete, p));
    let lines = prop::sample::select(vec![
        "cargo test",
        "cargo test --release",
        "mvn -B test",
        "rm -rf build",
        "git push",
        "npm install",
        "curl https://x.example",
        "cargo publish",
        "rm docs/a.md",
    ])
    .prop_map(shell);
    prop_oneof![deletes, lines]
}

/// How the later action asks for more than its policy answer says: nothing more, a higher
/// risk, a role nobody in the pool needs, or another approval type.
fn ask_more(bump: u8, e: &mut assent_core::Evaluation) {
    use assent_core::{ApprovalType, RiskLevel, Role};
    match bump {
        1 => e.decision.risk = RiskLevel::Critical,
        2 => e.decision.required_role = Some(Role::PlatformAdmin),
        3 => {
            let other = match e.approval_type() {
                ApprovalType::Tool => ApprovalType::Diff,
                _ => ApprovalType::Tool,
            };
            as_type(e, other);
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the scope and patterns, a grant never covers an action that asks more of a
    /// person than the one approved: another approval type, a rule it did not trigger, a
    /// higher risk or another required role — nor any other agent's request. The later action
    /// is often the approved one itself, asking for more, so even `once` is put to the test.
    #[test]
    fn a_grant_never_covers_more_than_was_approved(
        approved in asked_action(),
        other in asked_action(),
        same in any::<bool>(),
        bump in 0u8..4,
        scope in prop::sample::select(vec![ScopeKind::Once, ScopeKind::Run, ScopeKind::CommandProfile, ScopeKind::PathPattern]),
        patterns in prop::option::of(prop::sample::select(vec!["docs/**", "docs/*", "**/*.md", "**/Makefile", ".github/**"])),
        other_agent in prop::bool::weighted(0.25),
    ) {
        let first = eval_default(&approved);
        let patterns = patterns.map(|p| vec![p.to_owned()]);
        let Ok(c) = GrantConstraints::for_scope(scope, &approved, &first, AGENT, patterns.as_deref()) else {
            return Ok(());
        };
        let mut g = grant(0, scope, c, &first.policy_version, 3600, false, None);
        g.action_kinds = vec![approved.action.kind];
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
        let requester = if other_agent { "bot2" } else { AGENT };
        let later = if same { approved.clone() } else { other };
        let mut e = eval_default(&later);
        ask_more(bump, &mut e);
        if g.covers(&later, &e, requester, now).is_ok() {
            prop_assert_eq!(requester, AGENT, "only the agent that asked is covered");
            prop_assert_eq!(e.approval_type(), first.approval_type(), "the same type of approval");
            prop_assert!(e.rules.iter().all(|r| first.rules.contains(r)), "no rule beyond the approved ones: {:?} vs {:?}", e.rules, first.rules);
            prop_assert!(e.decision.risk <= first.decision.risk, "no higher risk: {:?} vs {:?}", e.decision.risk, first.decision.risk);
            prop_assert!(e.decision.required_role.is_none() || e.decision.required_role == first.decision.required_role, "no other role: {:?} vs {:?}", e.decision.required_role, first.decision.required_role);
        }
    }
}
