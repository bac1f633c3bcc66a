//! Verifies a store's chain page by page (a million rows never sit in memory together).

use ed25519_dalek::VerifyingKey;

use super::{Report, Start, Walk};
use crate::store::{Store, StoreError};

/// Rows read per page.
const PAGE: i64 = 2_000;

/// Walks every audit row of `store`, its checkpoints and the chain's start record, checking
/// signatures with `keys`.
pub async fn verify(store: &dyn Store, keys: &[VerifyingKey]) -> Result<Report, StoreError> {
    let checkpoints = store.audit_checkpoints().await?;
    let chain_start = store.audit_chain_start().await?;
    let mut walk = Walk::new(&checkpoints, chain_start, Start::Genesis);
    // From the lowest table row: a row inserted by hand may carry any `seq`, 0 or below too.
    let mut after = i64::MIN;
    loop {
        let page = store.audit_chain_page(after, PAGE).await?;
        let Some((last, _)) = page.last() else { break };
        after = *last;
        for (seq, row) in &page {
            walk.push(Some(*seq), row);
        }
    }
    Ok(walk.finish(&checkpoints, keys))
}
