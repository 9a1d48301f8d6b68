//! Asking the downstream person, by elicitation, before a tool that is not auto-approved runs.

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;
use rmcp::model::RequestStateCodec;

/// The per-process key sealing approval state handed to stateless clients.
pub(crate) struct Approvals {
    codec: RequestStateCodec,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals").finish_non_exhaustive()
    }
}

impl Approvals {
    pub(crate) fn new() -> Self {
        let mut key = [0u8; 32];
        OsRng.fill_bytes(&mut key);
        Self {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
        }
    }
}
