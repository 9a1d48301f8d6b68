//! UTC timestamps for the demo `current_time` tool.
//!
//! The tool needs exactly one thing from a date library: "seconds since the epoch" as RFC 3339
//! in UTC. That is a pure function of the integer, with no time zones or leap-second tables
//! involved (Unix time ignores leap seconds), so instead of pulling a date crate into the binary
//! for it we use Howard Hinnant's `civil_from_days` algorithm
//! (<https://howardhinnant.github.io/date_algorithms.html#civil_from_days>), checked below
//! against known dates and, day by day over several centuries, against a naive calendar walk.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since 1970-01-01T00:00:00Z, negative before it.
pub fn unix_seconds(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let secs = before.duration().as_secs_f64().ceil();
            -(secs as i64)
        }
    }
}

/// `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339_utc(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let secs_of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs_of_day / 3_600,
        secs_of_day % 3_600 / 60,
        secs_of_day % 60
    )
}

/// The proleptic Gregorian (year, month, day) of the day `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so the leap day is the last day of the (March-based) year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097); // [0, 146096]
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365; // [0, 399]
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100); // [0, 365]
    let mp = (5 * day_of_year + 2) / 153; // [0, 11], March = 0
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32; // [1, 31]
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // [1, 12]
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(-1), "1969-12-31T23:59:59Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_709_164_800), "2024-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339_utc(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(rfc3339_utc(4_107_542_400), "2100-03-01T00:00:00Z");
        assert_eq!(rfc3339_utc(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339_utc(-2_208_988_800), "1900-01-01T00:00:00Z");
    }

    fn is_leap(year: i64) -> bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    fn days_in_month(year: i64, month: u32) -> u32 {
        match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            _ if is_leap(year) => 29,
            _ => 28,
        }
    }

    #[test]
    fn agrees_with_a_naive_calendar_walk_from_1600_to_2400() {
        // 1600-01-01 is day -135_140 relative to 1970-01-01.
        let (mut year, mut month, mut day) = (1600_i64, 1_u32, 1_u32);
        for days in -135_140..=157_000_i64 {
            assert_eq!(civil_from_days(days), (year, month, day), "day {days}");
            day += 1;
            if day > days_in_month(year, month) {
                day = 1;
                month += 1;
                if month > 12 {
                    month = 1;
                    year += 1;
                }
            }
        }
    }

    #[test]
    fn system_time_on_both_sides_of_the_epoch() {
        assert_eq!(unix_seconds(UNIX_EPOCH + Duration::from_secs(42)), 42);
        assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_secs(42)), -42);
        assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_millis(500)), -1);
    }
}
