//! The evidence leaves core with its display text already masked, so the window, the
//! notifications and the audit show the same text and none of them can miss a secret.

use crate::evidence::{ApprovalEvidence, EvidenceDetail};
use crate::mask::mask_secrets;

/// `evidence` with every text a person reads passed through [`mask_secrets`]. Masking twice
/// changes nothing, so surfaces that mask again (the desktop does) show the same text.
pub(crate) fn masked(mut evidence: ApprovalEvidence) -> ApprovalEvidence {
    mask(&mut evidence.summary);
    evidence.command.iter_mut().flatten().for_each(mask);
    evidence.command_line.iter_mut().for_each(mask);
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
        // Built by the service from `assent run start` / campaign files, not by `evaluate`.
        EvidenceDetail::PreRun(_) | EvidenceDetail::Fleet(_) => {}
        EvidenceDetail::Diff(packet) => {
            mask(&mut packet.diff);
            packet.notes.iter_mut().for_each(mask);
            packet.files.iter_mut().for_each(|f| mask(&mut f.path));
        }
        EvidenceDetail::Pr(packet) => {
            packet.title.iter_mut().for_each(mask);
            for approval in &mut packet.diff_approvals {
                mask(&mut approval.summary);
                approval.reason.iter_mut().for_each(mask);
            }
        }
    }
    evidence
}

fn mask(text: &mut String) {
    *text = mask_secrets(text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{DiffApprovalRef, DiffApprovalState, DiffPacket, PrPacket};

    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123";

    #[test]
    fn every_display_text_is_masked_once_and_for_all() {
        let line = format!("git push https://me:{TOKEN}@github.com/o/r");
        let evidence = ApprovalEvidence {
            summary: format!("Run {line} in r"),
            command: Some(vec!["git".to_owned(), TOKEN.to_owned()]),
            command_line: Some(line.clone()),
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
                ..PrPacket::default()
            }),
            ..ApprovalEvidence::default()
        });
        let json = serde_json::to_string(&pr).unwrap_or_default();
        assert!(
            !json.contains("abcdefghijklmnop"),
            "a PR packet's title and diff approvals are masked too: {json}"
        );
    }
}
