//! The evidence leaves core with its display text already masked, so the window, the
//! notifications and the audit show the same text and none of them can miss a secret.

use crate::evidence::{ApprovalEvidence, EvidenceDetail};
use crate::mask::mask_in_place as mask;

/// `evidence` with every text a person reads passed through [`crate::mask::mask_secrets`]. Masking twice
/// changes nothing, so surfaces that mask again (the desktop does) show the same text.
pub(crate) fn masked(mut evidence: ApprovalEvidence) -> ApprovalEvidence {
    mask(&mut evidence.summary);
    evidence.command.iter_mut().flatten().for_each(mask);
    evidence.commands.iter_mut().flatten().for_each(mask);
    evidence.command_line.iter_mut().for_each(mask);
    for step in &mut evidence.steps {
        mask(&mut step.line);
        step.effect.iter_mut().for_each(mask);
    }
    for list in [
        &mut evidence.paths,
        &mut evidence.network,
        &mut evidence.symlinks,
        &mut evidence.policy_findings,
    ] {
        list.iter_mut().for_each(mask);
    }
    for text in [
        &mut evidence.credentials,
        &mut evidence.mutation,
        &mut evidence.diff_summary,
        &mut evidence.verification_status,
        &mut evidence.secret_risk,
    ] {
        text.iter_mut().for_each(mask);
    }
    match &mut evidence.detail {
        EvidenceDetail::Tool => {}
        // Built from the policy's capability declaration: never the secret or its source.
        EvidenceDetail::Credential(_) => {}
        // Built from `assent run start` and campaign files: the agent's and author's text.
        EvidenceDetail::PreRun(packet) => {
            mask(&mut packet.task);
            packet.remote_mutation.iter_mut().for_each(mask);
            for list in [
                &mut packet.repos,
                &mut packet.expected_actions,
                &mut packet.expected_credentials,
                &mut packet.triggers,
            ] {
                list.iter_mut().for_each(mask);
            }
        }
        EvidenceDetail::Fleet(packet) => {
            for text in [
                &mut packet.selection_criteria,
                &mut packet.prompt_contract,
                &mut packet.sample_diff,
                &mut packet.expected_pr_body,
                &mut packet.cost_estimate,
                &mut packet.verifier_profile,
            ] {
                mask(text);
            }
            packet.owner_notification.iter_mut().for_each(mask);
            for list in [
                &mut packet.target_repos,
                &mut packet.batch,
                &mut packet.excluded_repos,
            ] {
                list.iter_mut().for_each(mask);
            }
        }
        // The agent's reason, the command and the finding (which quotes the command).
        EvidenceDetail::Exception(packet) => {
            for text in [
                &mut packet.finding,
                &mut packet.repo,
                &mut packet.reason,
                &mut packet.covered_command,
            ] {
                mask(text);
            }
        }
        EvidenceDetail::Diff(packet) => {
            mask(&mut packet.diff);
            packet.notes.iter_mut().for_each(mask);
            packet.files.iter_mut().for_each(|f| mask(&mut f.path));
        }
        EvidenceDetail::Pr(packet) => {
            packet.title.iter_mut().for_each(mask);
            // Commit subjects are the agent's words too.
            let commits = packet.push.iter_mut().filter_map(|p| p.commits.as_mut());
            for commit in commits.flat_map(|c| c.commits.iter_mut()) {
                mask(&mut commit.subject);
            }
            for approval in &mut packet.diff_approvals {
                mask(&mut approval.summary);
                approval.reason.iter_mut().for_each(mask);
            }
        }
    }
    evidence
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{DiffApprovalRef, DiffApprovalState, DiffPacket, PrPacket};
    use crate::mask::mask_secrets;

    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123";

    #[test]
    fn every_display_text_is_masked_once_and_for_all() {
        let line = format!("git push https://me:{TOKEN}@github.com/o/r");
        let evidence = ApprovalEvidence {
            summary: format!("Run {line} in r"),
            command: Some(vec!["git".to_owned(), TOKEN.to_owned()]),
            command_line: Some(line.clone()),
            steps: vec![crate::evidence::CommandStep {
                line: format!("echo {TOKEN}"),
                effect: Some(format!("sends {TOKEN}")),
            }],
            cwd: "/r".to_owned(),
            network: vec![format!("https://me:{TOKEN}@github.com")],
            policy_findings: vec![format!("pushes with {TOKEN}")],
            mutation: Some(format!("API_TOKEN={TOKEN}")),
            detail: EvidenceDetail::Diff(DiffPacket {
                diff: format!("+api_key = \"{TOKEN}\"\n"),
                notes: vec![format!("token {TOKEN}")],
                ..DiffPacket::default()
            }),
            ..ApprovalEvidence::default()
        };
        let masked_once = masked(evidence);
        let json = serde_json::to_string(&masked_once).unwrap_or_default();
        assert!(
            !json.contains("abcdefghijklmnop"),
            "no field of the evidence keeps the token: {json}"
        );
        assert_eq!(
            masked_once.command_line.as_deref(),
            Some(mask_secrets(&line).as_str()),
            "the command line reads as the one masking function renders it"
        );
        assert_eq!(
            masked(masked_once.clone()),
            masked_once,
            "masking again (as the desktop does) changes nothing"
        );

        let pr = masked(ApprovalEvidence {
            detail: EvidenceDetail::Pr(PrPacket {
                title: Some(format!("use {TOKEN}")),
                diff_approvals: vec![DiffApprovalRef {
                    approval_id: "a".to_owned(),
                    summary: format!("Review diff with {TOKEN}"),
                    state: DiffApprovalState::Stale,
                    reason: None,
                }],
                push: Some(crate::evidence::PushPacket {
                    commits: Some(crate::request::PushedCommits {
                        commits: vec![crate::request::PushedCommit {
                            sha: "abc".to_owned(),
                            subject: format!("rotate {TOKEN}"),
                        }],
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..PrPacket::default()
            }),
            ..ApprovalEvidence::default()
        });
        let json = serde_json::to_string(&pr).unwrap_or_default();
        assert!(
            !json.contains("abcdefghijklmnop"),
            "a PR packet's title, pushed commits and diff approvals are masked too: {json}"
        );
    }

    #[test]
    fn pre_run_and_fleet_text_is_masked_in_every_field() {
        let pre_run: EvidenceDetail = serde_json::from_value(serde_json::json!({
            "type": "pre_run",
            "task": format!("deploy with {TOKEN}"),
            "task_risk": "high",
            "repos": [format!("https://me:{TOKEN}@github.com/o/r")],
            "expected_actions": [format!("push {TOKEN}")],
            "expected_credentials": [format!("GH_TOKEN={TOKEN}")],
            "remote_mutation": format!("PRs as {TOKEN}"),
            "triggers": [format!("listed: {TOKEN}")],
        }))
        .unwrap_or(EvidenceDetail::Tool);
        let fleet: EvidenceDetail = serde_json::from_value(serde_json::json!({
            "type": "fleet",
            "campaign": "c1",
            "target_repos": [format!("https://x:{TOKEN}@git.example/r")],
            "selection_criteria": format!("repos using {TOKEN}"),
            "prompt_contract": format!("export GH_TOKEN={TOKEN}"),
            "risk": "high",
            "verifier_profile": "maven-test",
            "stop_policy": "stop after 2",
            "failure_threshold": 2,
            "sample_diff": format!("+token = \"{TOKEN}\"\n"),
            "expected_pr_body": format!("uses {TOKEN}"),
            "cost_estimate": format!("$4 on key {TOKEN}"),
            "owner_notification": format!("mail {TOKEN}"),
        }))
        .unwrap_or(EvidenceDetail::Tool);
        for detail in [pre_run, fleet] {
            let kind = detail.approval_type();
            assert_ne!(
                kind,
                crate::ApprovalType::Tool,
                "the packet is read as what it is (the fixture matches the wire shape)"
            );
            let json = serde_json::to_string(&masked(ApprovalEvidence {
                detail,
                ..ApprovalEvidence::default()
            }))
            .unwrap_or_default();
            assert!(
                !json.contains("abcdefghijklmnop"),
                "a {kind:?} packet's text is masked in every field: {json}"
            );
        }
    }
}
