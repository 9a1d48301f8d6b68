//! The integration tests of `switchboard-grpc`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;
mod router_support;

mod node_processes;
mod node_requests;
mod node_security;
mod node_service;
mod node_sign_in;
mod router_node;
mod router_offline;
mod router_tls;
