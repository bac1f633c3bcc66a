//! Verifies a store's chain page by page (a million rows never sit in memory together).

use ed25519_dalek::VerifyingKey;

use super::{Report, Start, Walk};
use crate::store::{Store, StoreError};

/// Rows read per page.
const PAGE: i64 = 2_000;

/// Walks every audit row of `store` and its checkpoints, checking signatures with `keys`.
pub async fn verify(store: &dyn Store, keys: &[VerifyingKey]) -> Result<Report, StoreError> {
    let checkpoints = store.audit_checkpoints().await?;
    let mut walk = Walk::new(&checkpoints, Start::Genesis);
    let mut after = 0;
    loop {
        let page = store.audit_chain_page(after, PAGE).await?;
        let Some((last, _)) = page.last() else { break };
        after = *last;
        for (_, row) in &page {
            walk.push(row);
        }
    }
    Ok(walk.finish(&checkpoints, keys))
}
