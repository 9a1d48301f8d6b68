//! The BERT encoder's forward pass (inference only), on candle's tensors.
//!
//! Written here rather than taken from `candle-transformers`: that crate compiles every model
//! it ships (hundreds of them, with their own dependencies) to give us the one encoder of
//! sentence-transformers models, which is the hundred lines below. It follows Hugging Face's
//! `BertModel`: word, position and token-type embeddings summed and normalised, then per layer
//! self-attention (padding masked out) and a GELU feed-forward block, each followed by a
//! residual sum and a layer norm. Dropout is absent (inference); the pooler is not used.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;

/// `config.json`: the encoder's shape. Fields not read here are ignored.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BertConfig {
    #[serde(default)]
    pub model_type: Option<String>,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub position_embedding_type: Option<String>,
}

fn default_act() -> String {
    "gelu".to_owned()
}

fn default_type_vocab() -> usize {
    2
}

fn default_eps() -> f64 {
    1e-12
}

impl BertConfig {
    /// Why this encoder cannot run the model, if it cannot.
    pub fn unsupported(&self) -> Option<String> {
        if let Some(kind) = &self.model_type
            && kind != "bert"
        {
            return Some(format!("model_type {kind:?} (only \"bert\" is supported)"));
        }
        if let Some(kind) = &self.position_embedding_type
            && kind != "absolute"
        {
            return Some(format!("position_embedding_type {kind:?}"));
        }
        if Activation::parse(&self.hidden_act).is_none() {
            return Some(format!("hidden_act {:?}", self.hidden_act));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Some(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        None
    }
}

#[derive(Debug, Clone, Copy)]
enum Activation {
    /// `gelu`: the exact one, with the error function.
    Gelu,
    /// `gelu_new`, `gelu_pytorch_tanh`: the tanh approximation.
    GeluTanh,
    Relu,
}

impl Activation {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "gelu" => Some(Self::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Some(Self::GeluTanh),
            "relu" => Some(Self::Relu),
            _ => None,
        }
    }

    fn apply(self, xs: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::Gelu => xs.gelu_erf(),
            Self::GeluTanh => xs.gelu(),
            Self::Relu => xs.relu(),
        }
    }
}

/// The encoder with its weights.
#[derive(Debug)]
pub(crate) struct Bert {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    activation: Activation,
}

#[derive(Debug)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl Bert {
    /// Reads the weights named as `BertModel` names them, with or without a `bert.` prefix
    /// (a checkpoint saved from a task model has one).
    pub fn load(vb: VarBuilder, config: &BertConfig) -> candle_core::Result<Self> {
        let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
            vb
        } else {
            vb.pp("bert")
        };
        let hidden = config.hidden_size;
        let eps = config.layer_norm_eps;
        let embeddings = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|n| Layer::load(vb.pp(format!("encoder.layer.{n}")), config))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Self {
            word: candle_nn::embedding(
                config.vocab_size,
                hidden,
                embeddings.pp("word_embeddings"),
            )?,
            position: candle_nn::embedding(
                config.max_position_embeddings,
                hidden,
                embeddings.pp("position_embeddings"),
            )?,
            token_type: candle_nn::embedding(
                config.type_vocab_size,
                hidden,
                embeddings.pp("token_type_embeddings"),
            )?,
            norm: candle_nn::layer_norm(hidden, eps, embeddings.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
            head_dim: hidden / config.num_attention_heads,
            activation: Activation::parse(&config.hidden_act).unwrap_or(Activation::Gelu),
        })
    }

    /// The last hidden states, `(batch, tokens, hidden)`, of `ids` and `type_ids`
    /// (`(batch, tokens)`, u32) where `mask` (`(batch, tokens)`, f32, 1 for a token and 0 for
    /// padding) says which positions are text.
    pub fn forward(
        &self,
        ids: &Tensor,
        type_ids: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (batch, tokens) = ids.dims2()?;
        let positions = Tensor::arange(0u32, tokens as u32, ids.device())?
            .unsqueeze(0)?
            .broadcast_as((batch, tokens))?
            .contiguous()?;
        let xs = self
            .word
            .forward(ids)?
            .add(&self.position.forward(&positions)?)?
            .add(&self.token_type.forward(type_ids)?)?;
        let mut xs = self.norm.forward(&xs)?;
        // 0 where attention may look, the most negative f32 where it may not (padding), as
        // `BertModel`'s extended attention mask; shaped to add to (batch, heads, q, k).
        let bias = mask
            .affine(-1.0, 1.0)?
            .affine(f64::from(f32::MIN), 0.0)?
            .reshape((batch, 1, 1, tokens))?;
        for layer in &self.layers {
            xs = layer.forward(&xs, &bias, self.heads, self.head_dim, self.activation)?;
        }
        Ok(xs)
    }
}

impl Layer {
    fn load(vb: VarBuilder, config: &BertConfig) -> candle_core::Result<Self> {
        let hidden = config.hidden_size;
        let inner = config.intermediate_size;
        let eps = config.layer_norm_eps;
        let attention = vb.pp("attention");
        let own = attention.pp("self");
        Ok(Self {
            query: candle_nn::linear(hidden, hidden, own.pp("query"))?,
            key: candle_nn::linear(hidden, hidden, own.pp("key"))?,
            value: candle_nn::linear(hidden, hidden, own.pp("value"))?,
            attention_out: candle_nn::linear(hidden, hidden, attention.pp("output.dense"))?,
            attention_norm: candle_nn::layer_norm(hidden, eps, attention.pp("output.LayerNorm"))?,
            intermediate: candle_nn::linear(hidden, inner, vb.pp("intermediate.dense"))?,
            output: candle_nn::linear(inner, hidden, vb.pp("output.dense"))?,
            output_norm: candle_nn::layer_norm(hidden, eps, vb.pp("output.LayerNorm"))?,
        })
    }

    fn forward(
        &self,
        xs: &Tensor,
        bias: &Tensor,
        heads: usize,
        head_dim: usize,
        activation: Activation,
    ) -> candle_core::Result<Tensor> {
        let (batch, tokens, hidden) = xs.dims3()?;
        // (batch, tokens, hidden) -> (batch, heads, tokens, head_dim)
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((batch, tokens, heads, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let query = split(self.query.forward(xs)?)?;
        let key = split(self.key.forward(xs)?)?;
        let value = split(self.value.forward(xs)?)?;
        let scale = 1.0 / (head_dim as f64).sqrt();
        let scores = query
            .matmul(&key.t()?.contiguous()?)?
            .affine(scale, 0.0)?
            .broadcast_add(bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights
            .matmul(&value)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((batch, tokens, hidden))?;
        let attended = self
            .attention_norm
            .forward(&self.attention_out.forward(&context)?.add(xs)?)?;
        let inner = activation.apply(&self.intermediate.forward(&attended)?)?;
        self.output_norm
            .forward(&self.output.forward(&inner)?.add(&attended)?)
    }
}

/// A `(rows, columns)` u32 tensor of `values` (row after row).
pub(crate) fn ids_tensor(
    values: Vec<u32>,
    rows: usize,
    columns: usize,
    device: &Device,
) -> candle_core::Result<Tensor> {
    Tensor::from_vec(values, (rows, columns), device)
}

/// A `(rows, columns)` f32 tensor of a 0/1 mask.
pub(crate) fn mask_tensor(
    values: &[u32],
    rows: usize,
    columns: usize,
    device: &Device,
) -> candle_core::Result<Tensor> {
    let floats: Vec<f32> = values
        .iter()
        .map(|&v| if v == 0 { 0.0 } else { 1.0 })
        .collect();
    Tensor::from_vec(floats, (rows, columns), device)?.to_dtype(DType::F32)
}
