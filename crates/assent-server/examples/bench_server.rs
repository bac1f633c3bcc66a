//! Runs the real service for load tests: `cargo run --release -p assent-server --example
//! bench_server -- PORT DATA_DIR`; prints the tokens, serves until Ctrl-C.

use assent_core::Policy;
use assent_server::{App, Config};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().unwrap_or_else(|| "7399".to_owned()).parse()?;
    let dir = args
        .next()
        .unwrap_or_else(|| "/tmp/assent-bench".to_owned());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let app = App::open(Config::new(&dir, Policy::default())).await?;
    println!("REQUESTER={}", app.tokens().requester);
    println!("APPROVER={}", app.tokens().approver);
    app.serve(listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
