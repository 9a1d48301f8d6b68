//! switchboard-embed against a real model (all-MiniLM-L6-v2 from the test peers) and a real
//! HTTP endpoint.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

mod common;
mod endpoint;
mod model_dir;
mod reference;
