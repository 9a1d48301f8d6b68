//! The test model and small vector helpers.

use std::path::PathBuf;

use switchboard_embed::LocalModel;

/// all-MiniLM-L6-v2, unpacked by `scripts/test.sh --install-only` into
/// `$SWITCHBOARD_PEERS/embedding/all-MiniLM-L6-v2` (else `<workspace>/.peers/...`).
pub fn model_dir() -> PathBuf {
    let peers = match std::env::var_os("SWITCHBOARD_PEERS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.peers"),
    };
    let dir = peers.join("embedding/all-MiniLM-L6-v2");
    assert!(
        dir.join("model.safetensors").is_file(),
        "test peers not installed: run scripts/test.sh --install-only ({} is missing)",
        dir.display()
    );
    dir
}

pub async fn model() -> LocalModel {
    LocalModel::open(model_dir()).await.unwrap()
}

pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

pub fn texts(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}
