//! Checkpoints by count: besides the timed ones, the head is signed every `every` events,
//! inside the transaction whose append moves the chain past a multiple of `every` (so a busy
//! service never leaves more than about `every` events unsigned, whatever the minute).

use std::sync::{Arc, Mutex, PoisonError};

use super::AuditKey;
use crate::clock::Clock;

/// The key, the count and the clock (the checkpoint's `signed_at`) of the count checkpoints.
#[derive(Debug, Clone)]
pub struct CountSigner {
    pub key: AuditKey,
    /// Sign when an append crosses a multiple of this many events (at least 1).
    pub every: u64,
    pub clock: Arc<dyn Clock>,
}

impl CountSigner {
    /// Whether moving the head from `before` to `after` crosses a multiple of `every`.
    pub fn due(&self, before: i64, after: i64) -> bool {
        let every = i64::try_from(self.every.max(1)).unwrap_or(i64::MAX);
        before.div_euclid(every) != after.div_euclid(every)
    }
}

/// A store's count signer, set once the service knows its key (none: by time only).
#[derive(Debug, Default)]
pub struct SignerSlot(Mutex<Option<Arc<CountSigner>>>);

impl SignerSlot {
    pub fn set(&self, signer: Option<CountSigner>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = signer.map(Arc::new);
    }

    /// The signer for one write transaction.
    pub fn get(&self) -> Option<Arc<CountSigner>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
