//! `[routing] escalate_after`: read as written, shown back, and refused with a clear error
//! (and its line) when it cannot be used.

use assent_core::Policy;

#[test]
fn escalate_after_is_off_by_default_and_reads_as_written() {
    let default = Policy::default();
    assert_eq!(
        default.routing.escalate_after(),
        None,
        "prompts are not routed unless the policy says so"
    );
    let p = Policy::from_toml("[routing]\nescalate_after = \"5m\"\n").unwrap();
    assert_eq!(
        p.routing.escalate_after(),
        Some(chrono::Duration::minutes(5)),
        "5m is five minutes"
    );
    assert_ne!(
        p.version(),
        default.version(),
        "turning escalation on is a change of policy"
    );
    let shown = p.to_toml();
    assert!(
        shown.contains("[routing]") && shown.contains("escalate_after = \"5m\""),
        "`assent policy show` writes the section as a person would: {shown}"
    );
    let again = Policy::from_toml(&shown).unwrap();
    assert_eq!(
        again.version(),
        p.version(),
        "show's output reads back as the same policy"
    );
    assert!(
        !default.to_toml().contains("routing"),
        "a policy without the section shows none (its version is unchanged by this feature)"
    );
}

#[test]
fn bad_escalate_after_values_are_refused_with_what_to_write() {
    let cases = [
        (
            "no unit",
            "escalate_after = \"5\"",
            "must be a number with s, m, h or d",
        ),
        (
            "unknown unit",
            "escalate_after = \"5w\"",
            "must be a number with s, m, h or d",
        ),
        (
            "words",
            "escalate_after = \"five minutes\"",
            "must be a number with s, m, h or d",
        ),
        (
            "negative",
            "escalate_after = \"-5m\"",
            "must be a number with s, m, h or d",
        ),
        (
            "plus sign",
            "escalate_after = \"+5m\"",
            "must be a number with s, m, h or d",
        ),
        (
            "empty",
            "escalate_after = \"\"",
            "must be a number with s, m, h or d",
        ),
        ("zero", "escalate_after = \"0m\"", "must be 1s to 7d"),
        ("too long", "escalate_after = \"8d\"", "must be 1s to 7d"),
        (
            "overflow",
            "escalate_after = \"99999999999999999999d\"",
            "must be a number",
        ),
        ("a number", "escalate_after = 300", "expected a string"),
        (
            "after the timeout",
            "escalate_after = \"15m\"",
            "must be shorter than approval_timeout_seconds (900)",
        ),
        (
            "unknown key",
            "escalate_to = \"bob\"",
            "unknown field `escalate_to`",
        ),
    ];
    for (name, line, says) in cases {
        let text = format!("approval_timeout_seconds = 900\n\n[routing]\n{line}\n");
        let err = Policy::from_toml(&text).unwrap_err();
        assert!(
            err.message.contains(says),
            "[{name}] the error says what is wrong ({says:?}): {}",
            err.message
        );
        assert_eq!(
            err.line, 4,
            "[{name}] the error points at the line: {}",
            err.message
        );
    }
    let longer =
        Policy::from_toml("approval_timeout_seconds = 3600\n[routing]\nescalate_after = \"30m\"\n");
    assert!(
        longer.is_ok(),
        "a longer timeout leaves room to escalate: {longer:?}"
    );
}

#[test]
fn step_up_is_off_by_default_and_read_from_the_approvals_section() {
    use assent_core::types::RiskLevel;
    assert_eq!(
        Policy::default().approvals.step_up,
        None,
        "no approval needs a passkey unless the policy says so"
    );
    let p = Policy::from_toml("[approvals]\nstep_up = \"high\"\n").unwrap();
    assert_eq!(
        p.approvals.step_up,
        Some(RiskLevel::High),
        "`step_up = \"high\"` written in policy.toml is the policy the service enforces, \
         not a key accepted and then dropped"
    );
    assert_ne!(
        p.version(),
        Policy::default().version(),
        "turning step-up on is a change of policy"
    );
    let shown = p.to_toml();
    assert!(
        shown.contains("step_up = \"high\""),
        "`assent policy show` shows the step-up threshold: {shown}"
    );
    assert_eq!(
        Policy::from_toml(&shown).unwrap().approvals.step_up,
        Some(RiskLevel::High),
        "show's output reads back with step-up on"
    );
    let err = Policy::from_toml("[approvals]\nstep_up = \"extreme\"\n").unwrap_err();
    assert!(
        err.to_string().contains("step_up") || err.to_string().contains("extreme"),
        "an unknown risk level is refused, naming what was wrong: {err}"
    );
}
