//! The exported tools of a selection, with the table from exported names back to
//! (server, tool).
