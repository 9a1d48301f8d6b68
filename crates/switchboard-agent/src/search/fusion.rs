//! Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): a tool's fused score is
//! the sum over rankings of `1 / (k + rank)`. Ranks, not scores, are fused, so BM25's
//! unbounded scores and cosine similarities need no common scale.

use std::collections::HashMap;

/// The constant of the original paper: it damps the weight of the very first ranks.
pub const K: f32 = 60.0;

/// The items of `rankings` (each best first) by fused score, best first; ties keep the
/// smaller item first.
pub fn fuse(rankings: &[&[usize]]) -> Vec<(usize, f32)> {
    let mut scores: HashMap<usize, f32> = HashMap::new();
    for ranking in rankings {
        for (rank, item) in ranking.iter().enumerate() {
            *scores.entry(*item).or_default() += 1.0 / (K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<(usize, f32)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_item_both_rankings_place_high_wins() {
        let fused = fuse(&[&[1, 2, 3], &[2, 3, 1], &[3, 2, 1]]);
        assert_eq!(fused[0].0, 2);
        let fused = fuse(&[&[7, 1], &[7, 2]]);
        assert_eq!(fused[0].0, 7);
    }

    proptest! {
        #[test]
        fn one_ranking_fused_alone_keeps_its_order(items in proptest::collection::hash_set(0usize..500, 0..50)) {
            let ranking: Vec<usize> = items.into_iter().collect();
            let fused: Vec<usize> = fuse(&[&ranking]).into_iter().map(|(i, _)| i).collect();
            prop_assert_eq!(fused, ranking);
        }

        #[test]
        fn fusing_is_symmetric_and_keeps_every_item(
            a in proptest::collection::hash_set(0usize..100, 0..30),
            b in proptest::collection::hash_set(0usize..100, 0..30),
        ) {
            let a: Vec<usize> = a.into_iter().collect();
            let b: Vec<usize> = b.into_iter().collect();
            let ab = fuse(&[&a, &b]);
            let ba = fuse(&[&b, &a]);
            prop_assert_eq!(&ab, &ba);
            let mut all: Vec<usize> = a.iter().chain(&b).copied().collect();
            all.sort_unstable();
            all.dedup();
            let mut got: Vec<usize> = ab.iter().map(|(i, _)| *i).collect();
            got.sort_unstable();
            prop_assert_eq!(got, all);
        }

        #[test]
        fn an_item_ahead_in_both_rankings_stays_ahead(
            items in proptest::collection::hash_set(0usize..100, 2..30),
            x in 0usize..30, y in 0usize..30,
        ) {
            let ranking: Vec<usize> = items.into_iter().collect();
            let (i, j) = (x % ranking.len(), y % ranking.len());
            prop_assume!(i < j);
            let fused = fuse(&[&ranking, &ranking]);
            let pos = |item| fused.iter().position(|(k, _)| *k == item);
            prop_assert!(pos(ranking[i]) < pos(ranking[j]));
        }
    }
}
