//! The integration tests of `switchboard-core`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod fuzz_parsers;
mod tool_node_property7;
