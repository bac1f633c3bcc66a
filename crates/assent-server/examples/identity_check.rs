//! What the identity cache's per-request check costs against the lookup it replaces, on a
//! real SQLite file: `cargo run --release -p assent-server --example identity_check -- [N]`.
//! Times N calls of each (`identity_version`, then `identity_by_token`), alternated over
//! five rounds, 8 callers at once (as concurrent requests are); prints µs per call.

use std::sync::Arc;
use std::time::Instant;

use assent_server::identities::token_hash;
use assent_server::store::{SqliteStore, Store};
use assent_server::Directory;

const CALLERS: usize = 8;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "20000".to_owned())
        .parse()?;
    let dir = tempfile::tempdir()?;
    let directory = Directory::open(dir.path()).await?;
    let hash = token_hash(&directory.add_agent("bench-agent").await?);
    directory.close().await;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("assent.db")).await?);
    for round in 1..=5 {
        let check = time(&store, &hash, n, true).await?;
        let lookup = time(&store, &hash, n, false).await?;
        println!(
            "round {round}: version check {check:.1} µs/call, token lookup {lookup:.1} µs/call"
        );
    }
    store.close().await;
    Ok(())
}

/// Wall µs per call of `n` calls spread over [`CALLERS`] tasks.
async fn time(
    store: &Arc<dyn Store>,
    hash: &str,
    n: usize,
    check: bool,
) -> Result<f64, Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..CALLERS {
        let (store, hash) = (store.clone(), hash.to_owned());
        tasks.push(tokio::spawn(async move {
            for _ in 0..n / CALLERS {
                if check {
                    store.identity_version().await?;
                } else {
                    store.identity_by_token(&hash).await?;
                }
            }
            Ok::<(), assent_server::store::StoreError>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(start.elapsed().as_secs_f64() * 1e6 / n as f64)
}
