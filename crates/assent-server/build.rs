//! `sqlx::migrate!` embeds the migration files at compile time; without this, a migration
//! added to an already-built tree would be missing from the next build.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
