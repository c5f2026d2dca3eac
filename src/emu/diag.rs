//! Collects diagnostics during a launch: one report per (kind, severity, line, other line), with a count
//! of the other threads that did the same, and messages in a learner's words.

use super::result::{DiagKind, Diagnostic, Severity};
use std::collections::HashMap;

#[derive(Default)]
pub struct Diags {
    list: Vec<Diagnostic>,
    /// Threads that hit each report after the first.
    extra: Vec<u64>,
    /// The last thread counted for each report: a thread that hits the same report again (in a
    /// loop, or reading and writing on one line) is counted once.
    last: Vec<([u32; 3], [u32; 3])>,
    /// (kind, is an error, line, other line) → index in `list`.
    index: HashMap<(DiagKind, bool, u32, u32), usize>,
}

/// How to name threads and blocks: `thread 5 of block 1` for 1D launches, tuples otherwise.
#[derive(Clone, Copy)]
pub struct Namer {
    pub one_d: bool,
}

impl Namer {
    pub fn thread(&self, t: [u32; 3]) -> String {
        if self.one_d {
            format!("thread {}", t[0])
        } else {
            format!("thread ({},{},{})", t[0], t[1], t[2])
        }
    }

    pub fn block(&self, b: [u32; 3]) -> String {
        if self.one_d {
            format!("block {}", b[0])
        } else {
            format!("block ({},{},{})", b[0], b[1], b[2])
        }
    }

    pub fn who(&self, t: [u32; 3], b: [u32; 3]) -> String {
        format!("{} of {}", self.thread(t), self.block(b))
    }
}

pub struct Site {
    pub file: Option<String>,
    pub line: u32,
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

impl Diags {
    /// Record a problem unless the same kind at the same lines was already reported; `message`
    /// and `help` are only built for the first report.
    pub fn report(
        &mut self,
        kind: DiagKind,
        severity: Severity,
        site: Site,
        other_line: Option<u32>,
        message: impl FnOnce() -> (String, String),
    ) {
        let key = (
            kind,
            severity == Severity::Error,
            site.line,
            other_line.unwrap_or(0),
        );
        let who = (site.block, site.thread);
        if let Some(&i) = self.index.get(&key) {
            if self.last[i] != who {
                self.last[i] = who;
                self.extra[i] += 1;
            }
            return;
        }
        let (message, help) = message();
        self.last.push(who);
        self.index.insert(key, self.list.len());
        self.list.push(Diagnostic {
            kind,
            severity,
            message,
            help: Some(help),
            file: site.file,
            line: (site.line > 0).then_some(site.line),
            block: site.block,
            thread: site.thread,
            other_line,
        });
        self.extra.push(0);
    }

    /// Count one more thread for the report of `kind` at these lines (one already made).
    pub fn count_another(&mut self, kind: DiagKind, line: u32, other_line: u32) {
        if let Some(&i) = self.index.get(&(kind, true, line, other_line)) {
            self.extra[i] += 1;
        }
    }

    /// Merge another block's reports after this one's (block order keeps runs deterministic).
    pub fn merge(&mut self, other: Diags) {
        for (d, extra) in other.list.into_iter().zip(other.extra) {
            let key = (
                d.kind,
                d.severity == Severity::Error,
                d.line.unwrap_or(0),
                d.other_line.unwrap_or(0),
            );
            if let Some(&i) = self.index.get(&key) {
                self.extra[i] += 1 + extra;
            } else {
                self.index.insert(key, self.list.len());
                self.last.push((d.block, d.thread));
                self.list.push(d);
                self.extra.push(extra);
            }
        }
    }

    /// The final list, each message ending with how many other threads did the same.
    pub fn finish(self) -> Vec<Diagnostic> {
        self.list
            .into_iter()
            .zip(self.extra)
            .map(|(mut d, extra)| {
                if extra == 1 {
                    d.message.push_str(" (1 other thread did the same)");
                } else if extra > 1 {
                    d.message
                        .push_str(&format!(" ({extra} other threads did the same)"));
                }
                d
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: u32, t: u32) -> Site {
        Site {
            file: None,
            line,
            block: [0; 3],
            thread: [t, 0, 0],
        }
    }

    #[test]
    fn deduplicates_by_kind_and_line_and_counts_threads() {
        let mut d = Diags::default();
        for t in 0..3 {
            d.report(
                DiagKind::OutOfBounds,
                Severity::Error,
                site(7, t),
                None,
                || ("first".into(), "h".into()),
            );
        }
        d.report(
            DiagKind::OutOfBounds,
            Severity::Error,
            site(8, 0),
            None,
            || ("second".into(), "h".into()),
        );
        // The same thread again is not another thread.
        d.report(
            DiagKind::OutOfBounds,
            Severity::Error,
            site(7, 2),
            None,
            || ("first".into(), "h".into()),
        );
        let v = d.finish();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].message, "first (2 other threads did the same)");
        assert_eq!(v[0].thread, [0, 0, 0]);
        assert_eq!(v[1].line, Some(8));
    }
}
