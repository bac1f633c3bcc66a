//! Logging to stderr, for `assent serve` and the desktop app alike.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Logs to stderr at the level the environment variable `var` sets (`RUST_LOG` for
/// `assent serve`, `ASSENT_LOG` for the desktop app); see [`filter`].
pub fn init(var: &str) {
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter(std::env::var(var).ok().as_deref()))
        .init();
}

/// What `directives` lets through: a level (`debug`), or levels per target
/// (`warn,sqlx=debug,assent_server=trace`); `info` when unset or unreadable.
///
/// The directives are [`Targets`]', not `EnvFilter`'s: the latter's span and field filters
/// pulled a full-DFA regex engine into every crate, and the gate, which starts for every tool
/// call, then built full DFAs for its glob and secret patterns on each start
/// (docs/benchmarks.md).
fn filter(directives: Option<&str>) -> Targets {
    directives
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    /// The forms the docs give (`RUST_LOG=debug`, `RUST_LOG=info`, per target) keep working.
    #[test]
    fn levels_and_targets_are_read_as_before() {
        let unset = filter(None);
        assert!(
            unset.would_enable("assent_server", &Level::INFO),
            "unset: info, as before"
        );
        assert!(
            !unset.would_enable("assent_server", &Level::DEBUG),
            "unset: no debug"
        );
        let debug = filter(Some("debug"));
        assert!(
            debug.would_enable("sqlx::query", &Level::DEBUG),
            "a bare level holds for every target"
        );
        let per_target = filter(Some("warn,sqlx=debug"));
        assert!(
            per_target.would_enable("sqlx::query", &Level::DEBUG),
            "a target's own level holds for it and its modules"
        );
        assert!(
            !per_target.would_enable("assent_server", &Level::INFO),
            "and the default level for the rest"
        );
        let garbled = filter(Some("sqlx=loud"));
        assert!(
            garbled.would_enable("assent_server", &Level::INFO)
                && !garbled.would_enable("assent_server", &Level::DEBUG),
            "directives that cannot be read fall back to info, as EnvFilter's did"
        );
    }
}
