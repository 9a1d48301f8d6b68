//! The integration tests of `switchboard-agent`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;

mod deferred_tools;
mod end_to_end;
mod fuzz_prompt_mode;
mod loop_fakes;
mod tool_nodes;
mod tool_nodes_p5;
