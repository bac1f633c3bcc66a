//! Runs the real service for load tests: `cargo run --release -p assent-server --example
//! bench_server -- PORT DATA_DIR [postgres://…]`; prints the tokens, serves until Ctrl-C.
//! With a PostgreSQL URL the identities `bench-agent` and `bench-person` are made on the
//! first start (a second replica on the same database reuses them: pass their tokens on).

use assent_core::{Policy, ALL_ROLES};
use assent_server::{App, Config, Database, Directory, DirectoryError};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().unwrap_or_else(|| "7399".to_owned()).parse()?;
    let dir = args
        .next()
        .unwrap_or_else(|| "/tmp/assent-bench".to_owned());
    let database: Database = args.next().unwrap_or_else(|| "sqlite".to_owned()).parse()?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let mut config = Config::new(&dir, Policy::default());
    config.database = database.clone();
    let app = App::open(config).await?;
    if let Some(tokens) = app.tokens() {
        println!("REQUESTER={}", tokens.requester);
        println!("APPROVER={}", tokens.approver);
    } else if let Database::Postgres(url) = &database {
        let directory = Directory::connect(url).await?;
        match directory.add_agent("bench-agent").await {
            Ok(token) => println!("REQUESTER={token}"),
            Err(DirectoryError::Exists(_)) => {}
            Err(err) => return Err(err.into()),
        }
        match directory.add_person("bench-person", &ALL_ROLES).await {
            Ok(token) => println!("APPROVER={token}"),
            Err(DirectoryError::Exists(_)) => {}
            Err(err) => return Err(err.into()),
        }
        directory.close().await;
    }
    app.serve(listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
