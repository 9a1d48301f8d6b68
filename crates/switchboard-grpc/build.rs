//! Compiles `proto/switchboard/node/v1/node.proto` (at the workspace root) with protox, a
//! protobuf compiler written in Rust, so building needs no system `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let file = root.join("switchboard/node/v1/node.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let descriptors = protox::compile([&file], [&root])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
