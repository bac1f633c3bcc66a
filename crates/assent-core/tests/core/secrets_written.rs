//! Secrets written into the repository (issue 41, section 2): an edit whose new text holds a
//! credential — a cloud key, a forge or registry token, a private key, a connection string
//! with its password — is asked, the reason naming the kind of secret and showing it masked,
//! found by the rules the masking uses. The near-misses (a reference to a secret kept
//! elsewhere, a placeholder, a documented example, code that parses keys, an edit that takes
//! a secret out) stay auto.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::hook::action_from_claude_hook;
use assent_core::{action_from_codex_hook, ActionRequest, Decision, Policy};
use serde_json::json;

use Decision::{Ask, Auto};

const GITHUB: &str = "ghp_Zq3T9vXk2LmN8bRc5YdWj7HsPf4Ga6Ue1Qo0";
const AWS: &str = "AKIAZ7VQ3XKJ4M2N5P6R";
const KEY_BODY: &str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";

/// A Claude Code Write of `content` to `path` in the repository.
fn write(path: &str, content: &str) -> ActionRequest {
    let input = json!({"file_path": format!("{REPO}/{path}"), "content": content});
    claude_tool("Write", input)
}

/// A Claude Code Edit of `path` replacing `old` with `new`.
fn edit(path: &str, old: &str, new: &str) -> ActionRequest {
    let input =
        json!({"file_path": format!("{REPO}/{path}"), "old_string": old, "new_string": new});
    claude_tool("Edit", input)
}

fn asked(name: &'static str, request: ActionRequest, why: &'static str) -> Row {
    row(name, request, Ask, "ask.secret_written", why)
}

fn kept(name: &'static str, request: ActionRequest, why: &'static str) -> Row {
    row(name, request, Auto, "auto.edit", why)
}

#[test]
fn credentials_written_into_the_repository_are_asked() {
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"
    );
    let service_account = format!(
        "{{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{KEY_BODY}\\n-----END PRIVATE KEY-----\\n\"}}"
    );
    let multi = json!({
        "file_path": format!("{REPO}/config/database.yml"),
        "edits": [
            {"old_string": "adapter: postgresql", "new_string": "adapter: postgresql\nurl: postgres://shop:Tr0ub4dor-3@db.internal:5432/shop"},
        ],
    });
    let patch = "*** Begin Patch\n*** Update File: src/slack.py\n@@\n-TOKEN = os.environ[\"SLACK_TOKEN\"]\n+TOKEN = \"xoxb-2918274650-8273645102-aZ9bY8cX7dW6\"\n*** End Patch\n";
    let codex = action_from_codex_hook(
        &hook_payload("apply_patch", json!({"command": patch})),
        &hook_defaults(),
    )
    .unwrap();
    check(
        vec![
            asked(
                "a GitHub token in a settings file",
                write("src/settings.py", &format!("GITHUB_TOKEN = \"{GITHUB}\"\n")),
                "a forge token in the repository is read by everyone who reads the repository",
            ),
            asked(
                "an AWS key in an edit",
                edit(
                    "src/storage.ts",
                    "const region = 'eu-west-1';",
                    &format!("const region = 'eu-west-1';\nconst accessKeyId = '{AWS}';"),
                ),
                "a cloud key, even one line of an edit",
            ),
            asked(
                "a private key in a fixture",
                write("tests/fixtures/signing.txt", &pem),
                "a key block with its body is a private key, whatever the file is called",
            ),
            asked(
                "a service account's key in JSON",
                write("config/gcp.json", &service_account),
                "a key with escaped line breaks inside a JSON string is the same key",
            ),
            asked(
                "a connection string with its password, MultiEdit",
                claude_tool("MultiEdit", multi),
                "the password in a database URL logs in to the database",
            ),
            asked(
                "a Slack token through Codex's apply_patch",
                codex,
                "a patch's added lines are its new text",
            ),
            asked(
                "an AWS key in a notebook cell",
                action_from_claude_hook(
                    &hook_payload(
                        "NotebookEdit",
                        json!({
                            "notebook_path": format!("{REPO}/analysis.ipynb"),
                            "cell_id": "c1",
                            "new_source": format!("s3 = boto3.client('s3', aws_access_key_id='{AWS}')"),
                        }),
                    ),
                    &hook_defaults(),
                )
                .unwrap(),
                "a cell's new source is what the notebook edit writes",
            ),
            asked(
                "a GitLab token in Markdown",
                write(
                    "docs/ci.md",
                    "use `glpat-x8Kd92LmQp4Rz7TnVb3W` for the runner\n",
                ),
                "a token in prose is a token",
            ),
            asked(
                "an npm token in a script",
                write(
                    "scripts/publish.sh",
                    "export NPM_TOKEN=npm_a8Kd92LmQp4Rz7TnVb3Wc6Xy1Zs0Ef5Gh2Jk\n",
                ),
                "a registry token publishes as its owner",
            ),
            asked(
                "an Anthropic key",
                write(
                    "src/llm.py",
                    "client = Anthropic(api_key=\"sk-ant-api03-a8Kd92LmQp4Rz7TnVb3Wc6\")\n",
                ),
                "an API key bills its owner",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn credentials_a_shell_line_writes_are_asked() {
    check(
        vec![
            asked(
                "echo appended to a settings file",
                shell(&format!(
                    "echo 'GITHUB_TOKEN = \"{GITHUB}\"' >> src/settings.py"
                )),
                "a redirection writes the token the line spells out",
            ),
            asked(
                "printf into a config",
                shell(&format!("printf 'key: {AWS}\\n' > config/aws.yml")),
                "printf writes it as echo does",
            ),
            asked(
                "sed -i substituting a token",
                shell(&format!("sed -i 's/TOKEN_HERE/{GITHUB}/' src/settings.py")),
                "sed puts the replacement into the file",
            ),
            asked(
                "tee of a connection string",
                shell(
                    "echo 'url: postgres://shop:Tr0ub4dor-3@db.internal/shop' | tee config/db.yml",
                ),
                "tee writes what it is piped",
            ),
        ],
        &Policy::default(),
    );
    check(
        vec![
            row(
                "a plain write",
                shell("echo hello > notes.txt"),
                Auto,
                "auto.read",
                "a line with no credential in it writes none",
            ),
            row(
                "a reference written",
                shell("echo 'url: postgres://shop:{{db_password}}@db/shop' > config/db.yml"),
                Auto,
                "auto.read",
                "a template fills the password in where it is kept",
            ),
            row(
                "a token that authenticates a download",
                shell(&format!(
                    "curl -H 'Authorization: token {GITHUB}' https://api.github.com/user -o out.json"
                )),
                Ask,
                "ask.network",
                "the token goes in a header, not into out.json: asked as network access",
            ),
            row(
                "a search for token prefixes",
                shell("grep -rn ghp_ src"),
                Auto,
                "auto.read",
                "a prefix alone is no token, and grep writes nothing",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn the_reason_names_the_secret_and_shows_it_masked() {
    let e = eval_default(&write(
        "src/settings.py",
        &format!("GITHUB_TOKEN = \"{GITHUB}\"\nAWS = \"{AWS}\"\n"),
    ));
    let reasons = e.decision.reasons.join("\n");
    assert!(
        reasons.contains("a GitHub token") && reasons.contains("ghp_****"),
        "the person sees what kind of secret and its masked form: {reasons}"
    );
    assert!(
        reasons.contains("an AWS access key") && reasons.contains("AKIA****"),
        "every credential the edit adds is named: {reasons}"
    );
    let evidence = serde_json::to_string(&e.evidence).unwrap();
    assert!(
        e.evidence
            .policy_findings
            .iter()
            .any(|f| f.contains("a GitHub token") && f.contains("ghp_****")),
        "the evidence the person reads names the secret, masked: {:?}",
        e.evidence.policy_findings
    );
    assert!(
        !evidence.contains(GITHUB) && !evidence.contains(AWS) && !reasons.contains(GITHUB),
        "the secret itself is never shown: {evidence}"
    );
}

#[test]
fn near_misses_of_written_secrets_stay_auto() {
    check(
        vec![
            kept(
                "a token read from the environment",
                write(
                    "src/settings.py",
                    "GITHUB_TOKEN = os.environ[\"GITHUB_TOKEN\"]\n",
                ),
                "the code names where the secret is kept, not the secret",
            ),
            kept(
                "a password by reference in a URL",
                write(
                    "config/database.yml",
                    "url: postgres://shop:${DB_PASSWORD}@db.internal:5432/shop\n",
                ),
                "an interpolated variable holds no password",
            ),
            kept(
                "a URL without a password",
                write(
                    "config/database.yml",
                    "url: postgres://shop@localhost/shop\n",
                ),
                "a user name alone is no credential",
            ),
            kept(
                "a template placeholder",
                write(
                    "docs/setup.md",
                    "DATABASE_URL=postgres://user:<password>@host/db\n",
                ),
                "a placeholder in documentation is no password",
            ),
            kept(
                "AWS's documented example key",
                write("docs/aws.md", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"),
                "the key AWS prints in its documentation opens nothing",
            ),
            kept(
                "code that looks for a key header",
                write(
                    "src/pem.py",
                    "if line.startswith(\"-----BEGIN RSA PRIVATE KEY-----\"):\n    in_key = True\n",
                ),
                "a header with no key body is a parser, not a key",
            ),
            kept(
                "a token taken out",
                edit(
                    "src/settings.py",
                    &format!("GITHUB_TOKEN = \"{GITHUB}\""),
                    "GITHUB_TOKEN = os.environ[\"GITHUB_TOKEN\"]",
                ),
                "removing a secret from the repository is the fix, not the leak",
            ),
            kept(
                "a token already there, moved",
                edit(
                    "src/settings.py",
                    &format!("# legacy\nGITHUB_TOKEN = \"{GITHUB}\""),
                    &format!("GITHUB_TOKEN = \"{GITHUB}\"  # legacy"),
                ),
                "the edit writes no credential the file did not hold",
            ),
            kept(
                "a token prefix too short to be one",
                write("src/ids.py", "PREFIXES = [\"ghp_\", \"gho_abc\"]\n"),
                "a token's shape has its full length",
            ),
            kept(
                "a CI secret by reference, outside CI",
                write(
                    "docs/release.md",
                    "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n",
                ),
                "`${{ secrets.X }}` names a secret the forge keeps",
            ),
        ],
        &Policy::default(),
    );
}
