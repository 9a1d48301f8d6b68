//! From a model's token vectors to one sentence vector: the pooling that
//! `1_Pooling/config.json` names (sentence-transformers' `Pooling` module), then L2
//! normalisation.

use candle_core::{D, Tensor};
use serde::Deserialize;

/// `1_Pooling/config.json`, as sentence-transformers writes it.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct PoolingConfig {
    #[serde(default)]
    pub pooling_mode_cls_token: bool,
    #[serde(default)]
    pub pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pub pooling_mode_max_tokens: bool,
    #[serde(default)]
    pub pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pub pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pub pooling_mode_lasttoken: bool,
}

/// How the token vectors of one text become its vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pooling {
    /// The first token's (`[CLS]`).
    Cls,
    /// The mean of the text's tokens (padding left out).
    Mean,
    /// The largest value of each dimension over the text's tokens.
    Max,
    /// The sum of the text's tokens over the square root of their number.
    MeanSqrtLen,
}

impl PoolingConfig {
    /// The one pooling the config asks for; `Err` with why when it asks for none, for
    /// several (sentence-transformers then concatenates them) or for one not supported.
    pub fn pooling(&self) -> Result<Pooling, String> {
        if self.pooling_mode_weightedmean_tokens || self.pooling_mode_lasttoken {
            return Err("weighted-mean and last-token pooling are not supported".to_owned());
        }
        let chosen: Vec<Pooling> = [
            (self.pooling_mode_cls_token, Pooling::Cls),
            (self.pooling_mode_mean_tokens, Pooling::Mean),
            (self.pooling_mode_max_tokens, Pooling::Max),
            (self.pooling_mode_mean_sqrt_len_tokens, Pooling::MeanSqrtLen),
        ]
        .into_iter()
        .filter_map(|(on, pooling)| on.then_some(pooling))
        .collect();
        match chosen.as_slice() {
            [one] => Ok(*one),
            [] => Err("the pooling config chooses no pooling".to_owned()),
            _ => Err("combined poolings are not supported".to_owned()),
        }
    }
}

impl Pooling {
    /// `(batch, hidden)` from `hidden` `(batch, tokens, hidden)` and `mask` `(batch, tokens)`
    /// (f32, 1 for a token, 0 for padding).
    pub fn apply(self, hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let mask3 = mask.unsqueeze(D::Minus1)?;
        match self {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1),
            Pooling::Mean | Pooling::MeanSqrtLen => {
                let summed = hidden.broadcast_mul(&mask3)?.sum(1)?;
                // At least one token per text ([CLS]); the floor only guards the division.
                let count = mask.sum_keepdim(1)?.clamp(1e-9f32, f32::MAX)?;
                let count = if self == Pooling::Mean {
                    count
                } else {
                    count.sqrt()?
                };
                summed.broadcast_div(&count)
            }
            Pooling::Max => {
                // Padding pushed far below any real value, so it never wins.
                let shifted = mask3.affine(1e9, -1e9)?;
                hidden.broadcast_add(&shifted)?.max(1)
            }
        }
    }
}

/// `vector` scaled to length 1 (a zero vector stays zero).
pub fn normalized(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut vector {
            *x /= norm;
        }
    }
    vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_names_one_pooling() {
        let mean = PoolingConfig {
            pooling_mode_mean_tokens: true,
            ..PoolingConfig::default()
        };
        assert_eq!(mean.pooling(), Ok(Pooling::Mean));
        assert!(PoolingConfig::default().pooling().is_err());
        let both = PoolingConfig {
            pooling_mode_cls_token: true,
            ..mean
        };
        assert!(both.pooling().is_err());
    }

    #[test]
    fn pooling_leaves_padding_out() {
        let device = candle_core::Device::Cpu;
        // One text of two tokens and one padding position.
        let hidden = Tensor::new(&[[[1f32, 2.], [3., 4.], [100., 100.]]], &device).unwrap();
        let mask = Tensor::new(&[[1f32, 1., 0.]], &device).unwrap();
        let pooled = |p: Pooling| -> Vec<f32> {
            p.apply(&hidden, &mask).unwrap().to_vec2::<f32>().unwrap()[0].clone()
        };
        assert_eq!(pooled(Pooling::Mean), [2., 3.]);
        assert_eq!(pooled(Pooling::Cls), [1., 2.]);
        assert_eq!(pooled(Pooling::Max), [3., 4.]);
        let sqrt = pooled(Pooling::MeanSqrtLen);
        assert!((sqrt[0] - 4. / 2f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn normalised_vectors_have_length_one() {
        let v = normalized(vec![3., 4.]);
        assert_eq!(v, [0.6, 0.8]);
        assert_eq!(normalized(vec![0., 0.]), [0., 0.]);
    }
}
