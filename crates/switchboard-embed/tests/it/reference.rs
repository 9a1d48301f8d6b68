//! The in-process model's vectors against sentence-transformers' own (PyTorch), computed once
//! by scripts/reference-embeddings.py into fixtures/minilm-reference.json.

use serde::Deserialize;
use switchboard_core::Embedder;

use crate::common::{cosine, model};

#[derive(Deserialize)]
struct Reference {
    max_seq_length: usize,
    sentences: Vec<Sentence>,
}

#[derive(Deserialize)]
struct Sentence {
    text: String,
    vector: Vec<f32>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("fixtures/minilm-reference.json")).unwrap()
}

#[tokio::test]
async fn vectors_match_sentence_transformers_in_english_and_chinese() {
    let reference = reference();
    let model = model().await;
    assert_eq!(model.max_tokens(), reference.max_seq_length);
    assert_eq!(model.dims(), 384);
    let texts: Vec<String> = reference.sentences.iter().map(|s| s.text.clone()).collect();
    let vectors = model.embed(&texts).await.unwrap();
    assert_eq!(vectors.len(), texts.len());
    for (sentence, vector) in reference.sentences.iter().zip(&vectors) {
        let similarity = cosine(&sentence.vector, vector);
        assert!(
            similarity > 0.999,
            "{:?}: cosine {similarity} with sentence-transformers' vector",
            sentence.text
        );
        let length: f32 = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-4, "length {length}");
    }
}

#[tokio::test]
async fn a_text_has_one_vector_alone_or_padded_in_a_batch() {
    let model = model().await;
    let short = "read a file".to_owned();
    let batch = vec![
        "list every open pull request of a repository, newest first".to_owned(),
        short.clone(),
    ];
    let together = model.embed(&batch).await.unwrap();
    let alone = model.embed(std::slice::from_ref(&short)).await.unwrap();
    assert!(cosine(&together[1], &alone[0]) > 0.99999);
    assert!(model.embed(&[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_model_is_named_by_its_directory_and_weights() {
    let model = model().await;
    assert_eq!(model.model(), "local:all-MiniLM-L6-v2@53aa51172d142c89");
}
