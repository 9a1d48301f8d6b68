//! A directory that is not a model this crate runs fails to load, saying which file and why.

use switchboard_core::EmbeddingError;
use switchboard_embed::LocalModel;

fn load_error(dir: &std::path::Path) -> String {
    match LocalModel::load(dir) {
        Err(EmbeddingError::Load(message)) => message,
        other => panic!("expected a load error, got {other:?}"),
    }
}

#[test]
fn a_missing_or_foreign_model_is_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    assert!(load_error(dir.path()).contains("config.json"));

    let config = r#"{"model_type": "llama", "vocab_size": 10, "hidden_size": 8,
        "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16,
        "max_position_embeddings": 16}"#;
    std::fs::write(dir.path().join("config.json"), config).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains("config.json") && message.contains("llama"),
        "{message}"
    );

    std::fs::write(
        dir.path().join("config.json"),
        config.replace("llama", "bert"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("1_Pooling")).unwrap();
    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        r#"{"pooling_mode_lasttoken": true}"#,
    )
    .unwrap();
    assert!(load_error(dir.path()).contains("last-token"));

    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        r#"{"pooling_mode_mean_tokens": true}"#,
    )
    .unwrap();
    assert!(load_error(dir.path()).contains("tokenizer.json"));
}
