//! Serde for `Option<Duration>` written as a number of seconds.
//!
//! People write timeouts by hand in config files and API calls, so `30` and `2.5` both mean
//! what they say; whole seconds are written back as an integer, anything finer as a float, so a
//! spec read and written again keeps its text. Negative, infinite and NaN values, and values
//! too large for a `Duration`, are rejected when reading instead of being clamped. `null`
//! means "not set". (Zero is readable here; [`ServerSpec::validate`](super::ServerSpec::validate)
//! is where it is refused, with a message naming the field.)

use std::fmt;
use std::time::Duration;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

pub(super) fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        None => s.serialize_none(),
        Some(d) if d.subsec_nanos() == 0 => s.serialize_u64(d.as_secs()),
        Some(d) => s.serialize_f64(d.as_secs_f64()),
    }
}

pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_option(OptionalSecs)
}

struct OptionalSecs;

impl<'de> Visitor<'de> for OptionalSecs {
    type Value = Option<Duration>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number of seconds or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(Secs).map(Some)
    }
}

struct Secs;

impl Visitor<'_> for Secs {
    type Value = Duration;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative number of seconds")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
        Ok(Duration::from_secs(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
        u64::try_from(v)
            .map(Duration::from_secs)
            .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Duration, E> {
        Duration::try_from_secs_f64(v)
            .map_err(|_| E::invalid_value(de::Unexpected::Float(v), &self))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde::{Deserialize, Serialize};
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        #[serde(default, with = "super", skip_serializing_if = "Option::is_none")]
        timeout: Option<Duration>,
    }

    fn read(value: serde_json::Value) -> Result<Option<Duration>, serde_json::Error> {
        serde_json::from_value::<Holder>(value).map(|h| h.timeout)
    }

    #[test]
    fn reads_integers_floats_null_and_absence() {
        assert_eq!(
            read(json!({"timeout": 30})).unwrap(),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            read(json!({"timeout": 2.5})).unwrap(),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(read(json!({"timeout": 0})).unwrap(), Some(Duration::ZERO));
        assert_eq!(read(json!({"timeout": null})).unwrap(), None);
        assert_eq!(read(json!({})).unwrap(), None);
    }

    #[test]
    fn rejects_negative_and_non_numbers() {
        assert!(read(json!({"timeout": -1})).is_err());
        assert!(read(json!({"timeout": -0.5})).is_err());
        assert!(read(json!({"timeout": 1e300})).is_err());
        assert!(read(json!({"timeout": "30"})).is_err());
        assert!(read(json!({"timeout": true})).is_err());
    }

    #[test]
    fn writes_whole_seconds_as_integers_and_fractions_as_floats() {
        let whole = Holder {
            timeout: Some(Duration::from_secs(60)),
        };
        assert_eq!(
            serde_json::to_value(&whole).unwrap(),
            json!({"timeout": 60})
        );
        let fraction = Holder {
            timeout: Some(Duration::from_millis(1500)),
        };
        assert_eq!(
            serde_json::to_value(&fraction).unwrap(),
            json!({"timeout": 1.5})
        );
        let none = Holder { timeout: None };
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({}));
    }
}
