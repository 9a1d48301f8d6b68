//! Seed 000's contract, through a real `serve` on a socket, using only the paths and field
//! names seed 000 writes.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "seed_000/chat.rs"]
mod chat;

#[path = "seed_000/servers.rs"]
mod servers;
