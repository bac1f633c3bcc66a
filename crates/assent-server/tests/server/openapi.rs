//! The OpenAPI document shows the real wire shapes (enum values, evidence tagged by `type`
//! with each packet), and `ui/openapi.json` — the source of the window's generated
//! TypeScript types — is that document, byte for byte in meaning.

use std::path::Path;

use crate::common::Service;
use assent_server::ApiDoc;
use reqwest::StatusCode;
use serde_json::{json, Value};
use utoipa::OpenApi;

const REGENERATE: &str = "cd ui && npm run gen   \
    (= cargo run -q -p assent-server --example openapi > ui/openapi.json, then openapi-typescript)";

/// The schema named `name` in the document's components.
fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let found = &doc["components"]["schemas"][name];
    assert!(found.is_object(), "the document has a schema {name}");
    found
}

/// Every property of the object schema `name`, with those of the schemas it flattens in
/// (`allOf` of `$ref`s and inline objects), as clients see one object.
fn properties(doc: &Value, name: &str) -> serde_json::Map<String, Value> {
    let found = schema(doc, name);
    let parts = match found["allOf"].as_array() {
        Some(parts) => parts.clone(),
        None => vec![found.clone()],
    };
    let mut out = serde_json::Map::new();
    for part in parts {
        let part = match part["$ref"].as_str() {
            Some(r) => schema(doc, r.trim_start_matches("#/components/schemas/")).clone(),
            None => part,
        };
        if let Some(own) = part["properties"].as_object() {
            out.extend(own.clone());
        }
    }
    assert!(!out.is_empty(), "{name} is an object with properties");
    out
}

/// The `enum` values of the component schema `name`.
fn values(doc: &Value, name: &str) -> Vec<String> {
    schema(doc, name)["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} is an enum of strings"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// The component a property refers to (`$ref`, or a nullable `oneOf[null, $ref]`).
fn referenced(property: &Value) -> String {
    let reference = property["$ref"].as_str().map(str::to_owned).or_else(|| {
        property["oneOf"].as_array().and_then(|alternatives| {
            alternatives
                .iter()
                .find_map(|a| a["$ref"].as_str().map(str::to_owned))
        })
    });
    reference
        .unwrap_or_else(|| panic!("{property} refers to a component"))
        .trim_start_matches("#/components/schemas/")
        .to_owned()
}

#[tokio::test]
async fn the_document_shows_enums_and_typed_evidence() {
    let svc = Service::start().await;
    let resp = svc
        .http
        .get(format!("{}/v1/openapi.json", svc.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK, "the document is served");
    let doc: Value = resp.json().await.unwrap();

    let approval = Value::Object(properties(&doc, "Approval"));
    assert_eq!(
        referenced(&approval["approval_type"]),
        "ApprovalType",
        "approval_type is the closed vocabulary, not a free string"
    );
    assert_eq!(
        values(&doc, "ApprovalType"),
        [
            "tool",
            "diff",
            "pr",
            "credential",
            "pre_run",
            "exception",
            "fleet"
        ],
        "the seven approval types are listed by their wire names"
    );
    for (field, component, some) in [
        ("risk", "RiskLevel", "critical"),
        ("status", "ApprovalStatus", "approved_for_run"),
        ("decision", "Decision", "escalate"),
        ("action_kind", "ActionKind", "file_write"),
        ("required_role", "Role", "repo_maintainer"),
    ] {
        assert_eq!(
            referenced(&approval[field]),
            component,
            "Approval.{field} names its enum"
        );
        assert!(
            values(&doc, component).contains(&some.to_owned()),
            "{component} lists its values (e.g. {some}), not `string`"
        );
    }
    assert_eq!(
        approval["offered_scopes"]["items"]["$ref"], "#/components/schemas/ScopeKind",
        "offered scopes are scope kinds"
    );
    let answer = properties(&doc, "SubmitResponse");
    for field in [
        "decision",
        "risk",
        "reasons",
        "rule",
        "required_role",
        "profile",
        "offered_scopes",
        "status",
    ] {
        assert!(
            answer.contains_key(field) && approval.get(field).is_some(),
            "the decision's facts are fields of both the answer and the prompt: {field}"
        );
    }

    // Evidence: the common fields plus the packet of its type, tagged by `type`.
    assert_eq!(
        referenced(&approval["evidence"]),
        "ApprovalEvidence",
        "Approval.evidence is typed"
    );
    let evidence = schema(&doc, "ApprovalEvidence")["allOf"]
        .as_array()
        .unwrap();
    let detail = evidence
        .iter()
        .find_map(|part| part["$ref"].as_str())
        .expect("the evidence includes its type's packet");
    assert_eq!(
        detail, "#/components/schemas/EvidenceDetail",
        "the packet is the tagged EvidenceDetail"
    );
    let common = evidence
        .iter()
        .find(|part| part["properties"].is_object())
        .expect("the evidence has its common fields");
    for field in ["summary", "command_line", "paths", "policy_findings"] {
        assert!(
            common["properties"][field].is_object(),
            "the common evidence field {field} is shown"
        );
    }
    let variants = schema(&doc, "EvidenceDetail")["oneOf"].as_array().unwrap();
    let tagged: Vec<(String, Option<String>)> = variants
        .iter()
        .map(|variant| {
            let parts = variant["allOf"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![variant.clone()]);
            let tag = parts
                .iter()
                .find_map(|p| p["properties"]["type"]["enum"][0].as_str())
                .expect("each variant carries its `type`")
                .to_owned();
            let packet = parts
                .iter()
                .find_map(|p| p["$ref"].as_str())
                .map(|r| r.trim_start_matches("#/components/schemas/").to_owned());
            (tag, packet)
        })
        .collect();
    assert_eq!(
        tagged,
        [
            ("tool".to_owned(), None),
            ("diff".to_owned(), Some("DiffPacket".to_owned())),
            ("pr".to_owned(), Some("PrPacket".to_owned())),
            ("credential".to_owned(), Some("CredentialPacket".to_owned())),
            ("pre_run".to_owned(), Some("PreRunPacket".to_owned())),
            ("fleet".to_owned(), Some("FleetPacket".to_owned())),
            ("exception".to_owned(), Some("ExceptionPacket".to_owned())),
        ],
        "each evidence type is discriminated by `type` and carries its packet"
    );
    let diff = &schema(&doc, "DiffPacket")["properties"];
    for field in [
        "files",
        "flags",
        "lines_added",
        "lines_removed",
        "diff",
        "notes",
    ] {
        assert!(
            diff[field].is_object(),
            "the diff packet's {field} is shown"
        );
    }
    assert!(
        values(&doc, "DiffFlag").contains(&"workflow_changed".to_owned()),
        "diff flags list their names"
    );
    assert_eq!(
        values(&doc, "DiffApprovalState"),
        ["current", "stale", "pending", "denied"],
        "a PR shows each diff approval's state by name"
    );

    // Grants: the domain grant's fields with their status.
    let grant = schema(&doc, "Grant")["allOf"].as_array().unwrap();
    assert!(
        grant
            .iter()
            .any(|p| p["$ref"] == json!("#/components/schemas/ApprovalGrant")),
        "a grant shows the domain grant's fields, not `object`"
    );
    assert!(
        values(&doc, "GrantStatus").contains(&"revoked".to_owned()),
        "grant statuses are listed"
    );
    assert_eq!(
        doc["paths"]["/v1/actions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
            ["$ref"],
        "#/components/schemas/ActionRequest",
        "the submit body is the ActionRequest"
    );
    svc.stop().await;
}

#[test]
fn the_ui_copy_of_the_document_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/openapi.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{} unreadable ({e}); regenerate: {REGENERATE}",
            path.display()
        )
    });
    let committed: Value = serde_json::from_str(&committed)
        .unwrap_or_else(|e| panic!("ui/openapi.json is not JSON ({e}); regenerate: {REGENERATE}"));
    let current = serde_json::to_value(ApiDoc::openapi()).unwrap();
    assert!(
        committed == current,
        "ui/openapi.json differs from the service's document, so the window's generated types \
         (ui/src/api.gen.ts) are stale; regenerate: {REGENERATE}"
    );
}
