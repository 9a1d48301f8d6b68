//! Lines from standard input, and answers to approval questions.
//!
//! Reading a terminal or a pipe blocks, so one thread reads lines and hands them over a
//! channel; the chat awaits them next to the run's events and Ctrl-C. The thread is a plain
//! one, not Tokio's blocking pool, so a read still waiting when the chat ends does not keep
//! the runtime from shutting down. User messages and approval answers come through the same
//! channel, in the order they were typed or written.

use std::io::BufRead;

use tokio::sync::mpsc;

use super::error::ChatError;

/// Lines of standard input, without their line endings.
#[derive(Debug)]
pub struct Lines {
    receiver: mpsc::Receiver<std::io::Result<String>>,
}

impl Lines {
    /// Starts reading standard input.
    pub fn stdin() -> Self {
        let (sender, receiver) = mpsc::channel(1);
        std::thread::spawn(move || read_lines(std::io::stdin().lock(), &sender));
        Self { receiver }
    }

    /// The next line; `None` at the end of the input (and after it).
    pub async fn next(&mut self) -> Option<Result<String, ChatError>> {
        (self.receiver.recv().await).map(|line| line.map_err(ChatError::Input))
    }
}

/// Sends each line of `input` until its end, a read error or a receiver that is gone.
fn read_lines(mut input: impl BufRead, sender: &mpsc::Sender<std::io::Result<String>>) {
    let mut line = String::new();
    loop {
        line.clear();
        let read = match input.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => Ok(line.trim_end_matches(['\n', '\r']).to_owned()),
            Err(error) => Err(error),
        };
        let failed = read.is_err();
        if sender.blocking_send(read).is_err() || failed {
            return;
        }
    }
}

/// An answer to `Approve ...? [y]es / [n]o / [a]lways`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// Approve, and auto-approve the tool from now on.
    Always,
}

impl Answer {
    /// `y`, `yes`, `n`, `no`, `a`, `always`, in any case, with spaces around.
    pub fn parse(text: &str) -> Option<Answer> {
        match text.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Some(Answer::Yes),
            "n" | "no" => Some(Answer::No),
            "a" | "always" => Some(Answer::Always),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(Answer::parse("y"), Some(Answer::Yes));
        assert_eq!(Answer::parse(" YES "), Some(Answer::Yes));
        assert_eq!(Answer::parse("n"), Some(Answer::No));
        assert_eq!(Answer::parse("a"), Some(Answer::Always));
        assert_eq!(Answer::parse("Always"), Some(Answer::Always));
        assert_eq!(Answer::parse(""), None);
        assert_eq!(Answer::parse("What is 6*7?"), None);
    }

    #[tokio::test]
    async fn lines_lose_their_endings_and_end_with_the_input() {
        let (sender, mut receiver) = mpsc::channel(1);
        let input = std::io::Cursor::new(b"one\r\ntwo\n\nlast".to_vec());
        let reader = std::thread::spawn(move || read_lines(input, &sender));
        let mut lines = Vec::new();
        while let Some(line) = receiver.recv().await {
            lines.push(line.unwrap());
        }
        reader.join().unwrap();
        assert_eq!(lines, ["one", "two", "", "last"]);
    }
}
