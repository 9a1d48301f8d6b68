use switchboard_store::TextHash;

use crate::common::TestDb;

crate::on_both_backends!(
    vectors_are_kept_per_model_and_text_hash,
    many_vectors_are_read_and_written_in_batches
);

fn hash(n: u16) -> TextHash {
    let mut hash = [0; 32];
    hash[..2].copy_from_slice(&n.to_be_bytes());
    hash[31] = 0xff;
    hash
}

async fn vectors_are_kept_per_model_and_text_hash(db: &TestDb) {
    let store = &db.store;
    assert!(store.vectors("m", &[hash(1)]).await.unwrap().is_empty());
    store
        .put_vectors(
            "m",
            &[
                (hash(1), vec![0.25, -1.5, 3.0]),
                (hash(2), vec![1.0, 0.0, 0.0]),
            ],
        )
        .await
        .unwrap();
    let mut found = store
        .vectors("m", &[hash(2), hash(1), hash(3)])
        .await
        .unwrap();
    found.sort_by_key(|(h, _)| *h);
    assert_eq!(
        found,
        [
            (hash(1), vec![0.25, -1.5, 3.0]),
            (hash(2), vec![1.0, 0.0, 0.0])
        ]
    );
    // Another model's vectors are its own.
    assert!(store.vectors("other", &[hash(1)]).await.unwrap().is_empty());
    // Writing a hash again replaces its vector (even with another length).
    store
        .put_vectors("m", &[(hash(1), vec![f32::MIN_POSITIVE, 7.0])])
        .await
        .unwrap();
    assert_eq!(
        store.vectors("m", &[hash(1)]).await.unwrap(),
        [(hash(1), vec![f32::MIN_POSITIVE, 7.0])]
    );
    store.put_vectors("m", &[]).await.unwrap();
    assert!(store.vectors("m", &[]).await.unwrap().is_empty());
}

async fn many_vectors_are_read_and_written_in_batches(db: &TestDb) {
    let store = &db.store;
    let vectors: Vec<(TextHash, Vec<f32>)> = (0..700u16)
        .map(|n| (hash(n), vec![f32::from(n); 384]))
        .collect();
    store.put_vectors("minilm", &vectors).await.unwrap();
    let hashes: Vec<TextHash> = (0..800u16).map(hash).collect();
    let mut found = store.vectors("minilm", &hashes).await.unwrap();
    found.sort_by_key(|(h, _)| *h);
    assert_eq!(found, vectors);
}
