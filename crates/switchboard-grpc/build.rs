//! Compiles `proto/switchboard/node/v1/node.proto` (at the workspace root) with protox, a
//! protobuf compiler written in Rust, so building needs no system `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let file = root.join("switchboard/node/v1/node.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let descriptors = protox::compile([&file], [&root])?;
    // A tool list's JSON is shared, not copied, each time the node sends the same list.
    tonic_prost_build::configure()
        .bytes(".switchboard.node.v1.ToolList.tools_json")
        .compile_fds(descriptors)?;
    Ok(())
}
