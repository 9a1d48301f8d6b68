//! Tool nodes below the routes: what a node must pass to be stored ([`save`]), and running one
//! for a workflow engine ([`run`]). The REST routes and `switchboard tool-nodes` both use
//! these, so a node saved or run from either gets the same checks and the same answer.

pub mod run;
pub mod save;

pub use run::{NodeRun, NodeRunError, ToolCallResult, run_node};
pub use save::{NodeSaveError, check_against, check_assistant_variables, check_for_save};
