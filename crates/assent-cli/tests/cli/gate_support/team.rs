//! Identities on a team's database, made as a team makes them: `assent people add …` and
//! `assent agents add …` with `--database URL` (or `ASSENT_DATABASE_URL`), which print the new
//! token. A service on PostgreSQL writes no token files, so this is how its tests get tokens.

use std::process::{Command, Stdio};

use super::{finish, Ran, BIN};

/// Every role a person can hold, as `--role` flags.
pub const ALL_ROLES: [&str; 8] = [
    "--role",
    "task_author",
    "--role",
    "repo_maintainer",
    "--role",
    "security_reviewer",
    "--role",
    "platform_admin",
];

/// Runs `assent ARGS`, naming the database by flag or (with `env`) by ASSENT_DATABASE_URL.
pub fn admin(args: &[&str], database: &str, env: bool) -> Ran {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    name_database(&mut cmd, database, env);
    finish(cmd.spawn().unwrap())
}

/// Names `database` to `cmd`: with `--database`, or (`env`) with ASSENT_DATABASE_URL only,
/// never both, and never the caller's own ASSENT_DATABASE_URL.
pub fn name_database(cmd: &mut Command, database: &str, env: bool) {
    cmd.env_remove("ASSENT_DATABASE_URL");
    if env {
        cmd.env("ASSENT_DATABASE_URL", database);
    } else {
        cmd.args(["--database", database]);
    }
}

/// A person `alice` with every role and an agent `ci-bot`, made with the CLI on `database`:
/// their tokens, as the CLI printed them (the person's, then the agent's).
pub fn team(database: &str) -> (String, String) {
    let mut args = vec!["people", "add", "alice"];
    args.extend_from_slice(&ALL_ROLES);
    let person = admin(&args, database, false);
    assert_eq!(person.code, 0, "people add works: {}", person.stderr);
    let agent = admin(&["agents", "add", "ci-bot"], database, false);
    assert_eq!(agent.code, 0, "agents add works: {}", agent.stderr);
    let (person, agent) = (person.stdout.trim(), agent.stdout.trim());
    assert!(
        person.starts_with("assent_p_"),
        "people add prints the person's token: {person}"
    );
    assert!(
        agent.starts_with("assent_a_"),
        "agents add prints the agent's token: {agent}"
    );
    (person.to_owned(), agent.to_owned())
}
