//! Sizes of JSON values as `serde_json::to_vec` writes them (compact), measured without
//! serializing and without recursion, so arbitrarily deep input cannot overflow the stack.

use std::fmt::{self, Write};

use serde_json::{Number, Value};

/// Serialized size in bytes and container nesting (a scalar is 0, `[]` is 1, `[[1]]` is 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Measure {
    pub bytes: usize,
    pub nesting: usize,
}

pub(super) fn measure(value: &Value) -> Measure {
    let mut bytes = 0usize;
    let mut nesting = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((value, level)) = stack.pop() {
        bytes += match value {
            Value::Null | Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(number) => number_size(number),
            Value::String(text) => string_size(text),
            Value::Array(items) => {
                nesting = nesting.max(level);
                stack.extend(items.iter().map(|item| (item, level + 1)));
                2 + items.len().saturating_sub(1)
            }
            Value::Object(map) => {
                nesting = nesting.max(level);
                stack.extend(map.values().map(|item| (item, level + 1)));
                let keys: usize = map.keys().map(|key| string_size(key) + 1).sum();
                2 + map.len().saturating_sub(1) + keys
            }
        };
    }
    Measure { bytes, nesting }
}

/// Size of `"text"` with serde_json's escapes: two bytes for `"`, `\` and the named control
/// characters, six (`\u001f`) for the other control characters.
pub(super) fn string_size(text: &str) -> usize {
    2 + escaped_len(text)
}

/// Size of `text` inside quotes, escapes included.
pub(super) fn escaped_len(text: &str) -> usize {
    text.bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\x08' | b'\t' | b'\n' | b'\x0c' | b'\r' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Size of `"key":value` as an object entry, plus one for the comma that may separate it.
pub(super) fn entry_size(key: &str, value_bytes: usize) -> usize {
    string_size(key) + 1 + value_bytes + 1
}

fn number_size(number: &Number) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    // `Number`'s `Display` is the serializer's own formatting; writing to a counter cannot fail.
    let _ = write!(count, "{number}");
    count.0
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn serialized(value: &Value) -> usize {
        serde_json::to_vec(value)
            .map(|bytes| bytes.len())
            .unwrap_or(0)
    }

    #[test]
    fn sizes_match_serde_json() {
        let value = json!({
            "a\"b": [1, -2, 3.5, 1e300, 0.1, null, true, false],
            "c": "tab\there \u{1} \u{7f} é \\ \n",
            "": {},
            "d": [[], [{}]]
        });
        assert_eq!(measure(&value).bytes, serialized(&value));
        assert_eq!(measure(&value).nesting, 4);
        assert_eq!(measure(&json!(1)).nesting, 0);
    }

    #[test]
    fn deep_values_are_measured_without_recursion() {
        let mut value = json!(0);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        let m = measure(&value);
        assert_eq!(m.nesting, 100_000);
        assert_eq!(m.bytes, 200_001);
        // Take the value apart level by level: dropping it whole would recurse.
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap_or(Value::Null);
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn measure_agrees_with_serde_json(value in any_json()) {
            prop_assert_eq!(measure(&value).bytes, serialized(&value));
        }
    }
}
