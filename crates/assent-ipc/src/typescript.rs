//! The page's side of the link, `ui/src/ipc.gen.ts`: generated from the types of this crate
//! (ts-rs), never written by hand. `cd ui && npm run gen` writes it (through `cargo run -p
//! assent-ipc --example typescript`); the test below fails when the committed file is stale.

use ts_rs::{Config, Dummy, TS};

use crate::{
    CommandError, CommandErrorCode, DeskEvent, PauseChoice, SettingsInput, WindowCall, DESK_EVENT,
};

/// Where the generated file is committed, from the repository's root.
pub const PATH: &str = "ui/src/ipc.gen.ts";

const HEADER: &str = "\
// Generated from crates/assent-ipc by ts-rs: do not edit. Regenerate with `cd ui && npm run gen`;
// the test `typescript::tests::the_committed_file_is_fresh` (cargo test -p assent-ipc) fails
// when this file is stale. The protocol's types come from the service's OpenAPI document.
import type { components } from './api.gen';

type DecisionRequest = components['schemas']['DecisionRequest'];
type PolicyChange = components['schemas']['PolicyChange'];
";

fn declare<T: TS + ?Sized>(cfg: &Config, out: &mut String) {
    out.push('\n');
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(cfg));
    out.push('\n');
}

/// The whole of `ui/src/ipc.gen.ts`.
pub fn typescript() -> String {
    // Counts of days and call ids are small: plain numbers, not `bigint`.
    let cfg = Config::new().with_large_int("number");
    let mut out = HEADER.to_owned();
    declare::<WindowCall>(&cfg, &mut out);
    declare::<SettingsInput>(&cfg, &mut out);
    declare::<PauseChoice>(&cfg, &mut out);
    out.push_str(&format!(
        "\n/** The one event channel from the desk to the page. */\nexport const DESK_EVENT = {DESK_EVENT:?};\n"
    ));
    declare::<DeskEvent<Dummy>>(&cfg, &mut out);
    declare::<CommandError>(&cfg, &mut out);
    declare::<CommandErrorCode>(&cfg, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_file_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(PATH);
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|err| {
            panic!("{PATH} cannot be read ({err}); run: cd ui && npm run gen")
        });
        assert!(
            committed == typescript(),
            "{PATH} is not what the IPC types make (the page would call the desk with stale \
             names or arguments); regenerate: cd ui && npm run gen"
        );
    }

    #[test]
    fn the_page_sees_every_call_with_its_arguments() {
        let ts = typescript();
        for expected in [
            r#"{ "command": "desk_snapshot" }"#,
            r#"{ "command": "approval_decide", "args": { approval_id: string, decision: DecisionRequest, } }"#,
            r#"{ "command": "audit_list", "args": { run_id: string | null, } }"#,
            r#"{ "command": "suggestions_get", "args": { since_days: number, } }"#,
            "deny_reasons?: Array<string>",
        ] {
            assert!(
                ts.contains(expected),
                "the generated types must carry `{expected}` as the desk parses it:\n{ts}"
            );
        }
        assert!(
            !ts.contains("bigint"),
            "JSON numbers reach the page as numbers, never bigint:\n{ts}"
        );
    }
}
