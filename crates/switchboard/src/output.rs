//! How commands print: aligned text tables for people, JSON for programs.
//!
//! Results go to stdout and diagnostics to stderr, so `switchboard --json tools list | jq` sees
//! only JSON. A failed command prints `error CODE: message` on stderr, or with `--json` the
//! object `{"code": .., "message": ..}` on stdout, where the program reading `--json` output
//! is already looking; the exit status is non-zero either way.

use std::fmt::Write as _;
use std::io::Write as _;

use serde::Serialize;
use switchboard_core::ErrorCode;

/// `println!` that never panics: see [`stdout`].
macro_rules! outln {
    () => { $crate::output::stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that never panics: see [`stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::stdout(format_args!($($arg)*)) };
}

/// `eprintln!` that never panics: see [`stderr`].
macro_rules! errln {
    () => { $crate::output::stderr(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that never panics: see [`stderr`].
macro_rules! err {
    ($($arg:tt)*) => { $crate::output::stderr(format_args!($($arg)*)) };
}

/// Writes to stdout. `println!` panics when the reader has gone (`switchboard --json users
/// tokens NAME | head -c1`); here a closed pipe ends the process quietly with success, as
/// the reader asked for no more, and any other failure to write is reported once on stderr.
pub fn stdout(text: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(text).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => stderr(format_args!("error: cannot write to stdout: {error}\n")),
    }
}

/// Writes to stderr; a closed stderr leaves nobody to tell, so failures are ignored.
pub fn stderr(text: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(text).and_then(|()| err.flush());
}

/// The longest a table cell may be before it is cut with `…`.
const MAX_CELL: usize = 80;

/// Pretty JSON on stdout.
pub fn print_json(value: &impl Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => outln!("{text}"),
        // Only a `Serialize` impl that refuses (such as a map with non-string keys) gets here.
        Err(error) => errln!("error INTERNAL_ERROR: cannot print JSON: {error}"),
    }
}

/// A failure, the way the command line reports it.
pub fn print_error(json: bool, code: Option<ErrorCode>, message: &str) {
    let code = code.unwrap_or(ErrorCode::InternalError);
    if json {
        print_json(&serde_json::json!({ "code": code.as_str(), "message": message }));
    } else {
        errln!("error {code}: {message}");
    }
}

/// `rows` under `headers`, columns separated by two spaces; the last column is not padded.
/// Each cell shows only its first line, cut at [`MAX_CELL`] characters.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let cells: Vec<Vec<String>> =
        std::iter::once(headers.iter().map(|h| (*h).to_owned()).collect())
            .chain(rows.iter().map(|row| row.iter().map(|c| cell(c)).collect()))
            .collect();
    let columns = headers.len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            cells
                .iter()
                .filter_map(|row| row.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &cells {
        let mut line = String::new();
        for (i, text) in row.iter().enumerate() {
            if i + 1 == columns.min(row.len()) {
                line.push_str(text);
            } else {
                let width = widths.get(i).copied().unwrap_or(0);
                let _ = write!(line, "{text:<width$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn cell(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    if first.chars().count() > MAX_CELL {
        let cut: String = first.chars().take(MAX_CELL - 1).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    }
}

/// A command line as a person would type it: arguments with spaces or quotes are quoted.
pub fn command_line(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(|word| {
            if !word.is_empty()
                && !word.contains(|c: char| c.is_whitespace() || "'\"\\$`".contains(c))
            {
                word.to_owned()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_trim() {
        let rows = vec![
            vec!["a".to_owned(), "longer cell".to_owned(), "x".to_owned()],
            vec![
                "bbbb".to_owned(),
                "c".to_owned(),
                "first line\nsecond".to_owned(),
            ],
        ];
        let text = table(&["NAME", "TARGET", "NOTE"], &rows);
        assert_eq!(
            text,
            "NAME  TARGET       NOTE\n\
             a     longer cell  x\n\
             bbbb  c            first line\n"
        );
    }

    #[test]
    fn long_cells_are_cut() {
        let long = "x".repeat(200);
        let text = table(&["A"], &[vec![long]]);
        assert_eq!(text.lines().nth(1).unwrap().chars().count(), MAX_CELL);
        assert!(text.contains('…'));
    }

    #[test]
    fn command_lines_quote_what_needs_it() {
        let args = vec![
            "-y".to_owned(),
            "a b".to_owned(),
            "it's".to_owned(),
            String::new(),
        ];
        assert_eq!(command_line("npx", &args), r"npx -y 'a b' 'it'\''s' ''");
    }
}
