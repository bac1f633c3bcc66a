//! Weakened tests and production deploy config (issue 41, section 2; the seed's diff-approval
//! triggers): an edit that skips, disables, focuses away from or deletes a test, or takes
//! out assertions, is a diff review that says "tests weakened" — judged from the edit's own
//! text when no diff came with it; an edit of a file whose path names production and that
//! configures a deployment (Helm values, a Kubernetes manifest, Terraform, a deploy
//! workflow) is asked as that. The near-misses beside them stay auto.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{action_from_codex_hook, ActionRequest, Decision, Policy, Role};
use serde_json::json;

use Decision::{Ask, Auto};

/// A Claude Code Edit of `path` (in the repository) replacing `old` with `new`.
fn edit(path: &str, old: &str, new: &str) -> ActionRequest {
    let input =
        json!({"file_path": format!("{REPO}/{path}"), "old_string": old, "new_string": new});
    claude_tool("Edit", input)
}

/// A Claude Code Write of `content` to `path` in the repository.
fn write(path: &str, content: &str) -> ActionRequest {
    let input = json!({"file_path": format!("{REPO}/{path}"), "content": content});
    claude_tool("Write", input)
}

fn weakened(name: &'static str, request: ActionRequest, why: &'static str) -> Row {
    with_role(
        row(name, request, Ask, "ask.diff_review", why),
        Role::RepoMaintainer,
    )
}

fn deploy(name: &'static str, request: ActionRequest, why: &'static str) -> Row {
    with_role(
        row(name, request, Ask, "ask.deploy_config", why),
        Role::RepoMaintainer,
    )
}

#[test]
fn edits_that_weaken_tests_are_a_diff_review() {
    let patch = "*** Begin Patch\n*** Update File: src/test/java/OrderTest.java\n@@\n     @Test\n+    @Disabled(\"flaky\")\n     void refunds() {\n*** End Patch\n";
    let codex = action_from_codex_hook(
        &hook_payload("apply_patch", json!({"command": patch})),
        &hook_defaults(),
    )
    .unwrap();
    let rows = vec![
        weakened(
            "pytest's skip mark",
            edit(
                "tests/test_orders.py",
                "def test_refund():",
                "@pytest.mark.skip(reason=\"flaky\")\ndef test_refund():",
            ),
            "a skipped test passes whatever the code does",
        ),
        weakened(
            "Rust's #[ignore]",
            edit(
                "src/lib.rs",
                "    #[test]\n    fn adds() {",
                "    #[test]\n    #[ignore]\n    fn adds() {",
            ),
            "an ignored test no longer runs in `cargo test`",
        ),
        weakened(
            "Jasmine's xit",
            edit(
                "web/cart.test.ts",
                "  it('totals', () => {",
                "  xit('totals', () => {",
            ),
            "`xit` turns the test off",
        ),
        weakened(
            "describe.skip",
            edit(
                "web/cart.spec.ts",
                "describe('cart', () => {",
                "describe.skip('cart', () => {",
            ),
            "a whole suite skipped",
        ),
        weakened(
            "a focused test",
            edit(
                "web/cart.test.ts",
                "  it('totals', () => {",
                "  it.only('totals', () => {",
            ),
            "`.only` runs this test and skips every other",
        ),
        weakened(
            "Go's t.Skip",
            edit(
                "orders/orders_test.go",
                "func TestRefund(t *testing.T) {",
                "func TestRefund(t *testing.T) {\n\tt.Skip(\"later\")",
            ),
            "the test returns before it checks anything",
        ),
        weakened(
            "an assertion taken out",
            edit(
                "tests/test_orders.py",
                "    assert total == 42\n    assert tax == 4",
                "    assert total == 42",
            ),
            "fewer assertions in a test file check less",
        ),
        weakened(
            "an assertion commented out",
            edit(
                "web/cart.test.ts",
                "    expect(total).toBe(42);",
                "    // expect(total).toBe(42);",
            ),
            "a commented-out assertion checks nothing, though its text is still there",
        ),
        weakened(
            "a test deleted from its file",
            edit(
                "tests/test_orders.py",
                "def test_refund():\n    assert refund(order) == 10\n",
                "",
            ),
            "the test is gone with its assertion",
        ),
        weakened(
            "JUnit's @Disabled through Codex's apply_patch",
            codex,
            "a patch's added lines are read as an edit's",
        ),
    ];
    reasons_say(
        &rows,
        "tests weakened",
        "the reason says what the review is for",
    );
    check(rows, &Policy::default());
}

#[test]
fn near_misses_of_weakened_tests_stay_auto() {
    let kept = |name, request, why| row(name, request, Auto, "auto.edit", why);
    check(
        vec![
            kept(
                "sys.exit is no xit",
                edit("src/cli.py", "    return 1", "    sys.exit(1)"),
                "a marker starts a name: `exit(` holds the letters of `xit(`",
            ),
            kept(
                "a model fitted",
                edit("src/train.py", "model = Model()", "model = Model()\nmodel.fit(x, y)"),
                "only the test frameworks' own spellings are markers",
            ),
            kept(
                "an expected value changed",
                edit("tests/test_orders.py", "    assert total == 42", "    assert total == 43"),
                "as many assertions as before",
            ),
            kept(
                "a test added",
                edit(
                    "tests/test_orders.py",
                    "def test_refund():",
                    "def test_partial_refund():\n    assert refund(order, 5) == 5\n\n\ndef test_refund():",
                ),
                "more tests is the opposite of weaker",
            ),
            kept(
                "a skip taken out",
                edit(
                    "tests/test_orders.py",
                    "@pytest.mark.skip(reason=\"flaky\")\ndef test_refund():",
                    "def test_refund():",
                ),
                "running a test again strengthens the suite",
            ),
            kept(
                "the word skip in a comment",
                edit("src/parse.rs", "    let line = line.trim();", "    // skip blank lines\n    let line = line.trim();"),
                "a comment about skipping is no skipped test",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn production_deploy_config_is_asked() {
    let rows = vec![
        deploy(
            "Helm values for prod",
            edit("deploy/helm/values-prod.yaml", "replicas: 3", "replicas: 1"),
            "production's Helm values decide what production runs",
        ),
        deploy(
            "Helm values by file name",
            edit(
                "charts/shop/values.production.yaml",
                "tag: v1.4.2",
                "tag: latest",
            ),
            "a values file names its environment",
        ),
        deploy(
            "a Kubernetes overlay",
            edit(
                "k8s/overlays/production/deployment.yaml",
                "memory: 512Mi",
                "memory: 64Mi",
            ),
            "kustomize applies the production overlay to production",
        ),
        deploy(
            "Terraform for prod",
            write(
                "infra/terraform/prod/main.tf",
                "resource \"aws_s3_bucket\" \"b\" {}\n",
            ),
            "production infrastructure, applied by a pipeline",
        ),
        deploy(
            "prod tfvars",
            edit(
                "environments/prod.tfvars",
                "instance_count = 3",
                "instance_count = 0",
            ),
            "the variables production's plan is made with",
        ),
        deploy(
            "a production deploy workflow",
            edit(
                ".github/workflows/deploy-production.yml",
                "needs: test",
                "needs: []",
            ),
            "the workflow that deploys to production, named for what it is (not only CI)",
        ),
        deploy(
            "a workflow whose environment is production",
            edit(
                ".github/workflows/release.yml",
                "    runs-on: ubuntu-latest",
                "    runs-on: ubuntu-latest
    environment: production",
            ),
            "the workflow's text names the environment it deploys to",
        ),
        deploy(
            "a production Compose file",
            write(
                "docker-compose.prod.yml",
                "services:\n  web:\n    image: shop:latest\n",
            ),
            "Compose's production file is what the host runs",
        ),
        deploy(
            "an Ansible inventory",
            edit("ansible/inventories/production/hosts.yml", "web1:", "web9:"),
            "the hosts production is deployed to",
        ),
        deploy(
            "sed -i on a prod manifest",
            shell("sed -i 's/replicas: 3/replicas: 1/' k8s/prod/deployment.yaml"),
            "a shell edit of the same file is the same change",
        ),
    ];
    reasons_say(
        &rows,
        "production deployment configuration",
        "the reason names production",
    );
    check(rows, &Policy::default());
}

#[test]
fn near_misses_of_production_config_stay_auto() {
    let kept = |name, request, why| row(name, request, Auto, "auto.edit", why);
    check(
        vec![
            kept(
                "a staging overlay",
                edit(
                    "k8s/overlays/staging/deployment.yaml",
                    "replicas: 2",
                    "replicas: 1",
                ),
                "another environment's manifest is an ordinary change",
            ),
            kept(
                "dev Helm values",
                edit("charts/shop/values-dev.yaml", "replicas: 2", "replicas: 1"),
                "the development values deploy nothing to production",
            ),
            kept(
                "production in source code",
                edit("src/production/orders.rs", "let n = 1;", "let n = 2;"),
                "code about production is no deployment configuration",
            ),
            kept(
                "a production runbook",
                edit("docs/prod-runbook.md", "Step 1", "Step one"),
                "documentation configures nothing",
            ),
            kept(
                "prod in a fixture's name",
                write("tests/fixtures/prod_orders.json", "[]\n"),
                "a test fixture outside any deployment folder",
            ),
            kept(
                "reproduce is not prod",
                edit("k8s/overlays/reproduce/job.yaml", "image: a", "image: b"),
                "`prod` must be a word of the path",
            ),
            kept(
                "Terraform modules",
                edit(
                    "infra/terraform/modules/vpc/main.tf",
                    "cidr = \"10.0.0.0/16\"",
                    "cidr = \"10.1.0.0/16\"",
                ),
                "a module names no environment",
            ),
        ],
        &Policy::default(),
    );
    check(
        vec![with_role(
            row(
                "a staging deploy workflow",
                edit(
                    ".github/workflows/release.yml",
                    "    runs-on: ubuntu-latest",
                    "    runs-on: ubuntu-latest
    environment: staging",
                ),
                Ask,
                "ask.ci_config",
                "a workflow is CI configuration, asked as before; only production is named so",
            ),
            Role::RepoMaintainer,
        )],
        &Policy::default(),
    );
    check(
        vec![row(
            "reading a prod manifest",
            shell("cat k8s/prod/deployment.yaml"),
            Auto,
            "auto.read",
            "reading changes nothing in production",
        )],
        &Policy::default(),
    );
}
