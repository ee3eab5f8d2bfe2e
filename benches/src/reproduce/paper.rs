//! The papers' numbers as data: each figure's or table's numbers are typed rows with their
//! source, and [`PaperTable::markdown`] is the one place they become markdown. The
//! experiments read the same rows for the "paper" columns and plots of their pages.
//!
//! Sources give the section where the stored seed texts (`/work/shared/seeds`, plain text
//! without page breaks) carry no page numbers.

use std::fmt::{self, Write as _};

use super::registry::Paper;

/// Where numbers come from: the paper, the figure or table, and its section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The paper.
    pub paper: Paper,
    /// The figure or table ("table 1", "fig. 10", "text").
    pub item: &'static str,
    /// Where in the paper: its section ("§4.2.1"), or the kernel it measures.
    pub location: &'static str,
}

impl Source {
    /// Numbers of `paper`'s `item`, at `location`.
    pub const fn new(paper: Paper, item: &'static str, location: &'static str) -> Self {
        Self {
            paper,
            item,
            location,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}, {}", self.paper, self.item, self.location)
    }
}

/// One row of a paper's table, as the cells the paper prints.
pub trait Row {
    /// The cells, one per column.
    fn cells(&self) -> Vec<String>;
}

/// A paper's table: its rows and where they come from.
#[derive(Clone, Copy, Debug)]
pub struct PaperTable<'a, R> {
    /// Where the numbers are.
    pub source: Source,
    /// Column headings.
    pub columns: &'a [&'a str],
    /// The rows.
    pub rows: &'a [R],
    /// Print each row as a column (a table the paper prints sideways).
    pub transposed: bool,
}

impl<'a, R> PaperTable<'a, R> {
    /// The table with these headings and rows, printed as the paper prints it.
    pub const fn new(source: Source, columns: &'a [&'a str], rows: &'a [R]) -> Self {
        Self {
            source,
            columns,
            rows,
            transposed: false,
        }
    }

    /// The same table printed with each row as a column (the paper prints it sideways).
    pub const fn sideways(self) -> Self {
        Self {
            transposed: true,
            ..self
        }
    }
}

impl<R: Row> PaperTable<'_, R> {
    /// The table as GitHub markdown, then its source.
    pub fn markdown(&self) -> String {
        let mut lines: Vec<Vec<String>> =
            std::iter::once(self.columns.iter().map(|c| c.to_string()).collect())
                .chain(self.rows.iter().map(Row::cells))
                .collect();
        if self.transposed {
            let width = lines.iter().map(Vec::len).max().unwrap_or(0);
            lines = (0..width)
                .map(|c| {
                    lines
                        .iter()
                        .map(|l| l.get(c).cloned().unwrap_or_default())
                        .collect()
                })
                .collect();
        }
        let mut md = String::new();
        for (i, cells) in lines.iter().enumerate() {
            let _ = writeln!(md, "| {} |", cells.join(" | "));
            if i == 0 {
                let _ = writeln!(md, "|{}", "---|".repeat(cells.len()));
            }
        }
        let _ = writeln!(md, "\n*Source: {}.*", self.source);
        md
    }
}

/// A quantity a paper states in its text or plots, with the paper's value in words.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    /// What is measured.
    pub what: &'static str,
    /// The paper's value ("~1.18", "67 % / 100 % / 67 %").
    pub value: &'static str,
}

impl Quantity {
    /// `what` the paper states, with its value.
    pub const fn new(what: &'static str, value: &'static str) -> Self {
        Self { what, value }
    }
}

impl Row for Quantity {
    fn cells(&self) -> Vec<String> {
        vec![self.what.into(), self.value.into()]
    }
}

/// The "What the paper reports" section: the paper's words, then its numbers.
pub fn reported<R: Row>(prose: &str, table: &PaperTable<'_, R>) -> String {
    format!("{prose}\n\n{}", table.markdown())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Pair(u32, f64);

    impl Row for Pair {
        fn cells(&self) -> Vec<String> {
            vec![self.0.to_string(), self.1.to_string()]
        }
    }

    const SOURCE: Source = Source {
        paper: Paper::KatoSudaTamada,
        item: "table 4",
        location: "§4",
    };

    const ROWS: [Pair; 2] = [Pair(1, 0.5), Pair(4, 0.25)];

    fn table(transposed: bool) -> PaperTable<'static, Pair> {
        PaperTable {
            source: SOURCE,
            columns: &["n", "value"],
            rows: &ROWS,
            transposed,
        }
    }

    #[test]
    fn renders_rows_and_source() {
        assert_eq!(
            table(false).markdown(),
            "| n | value |\n|---|---|\n| 1 | 0.5 |\n| 4 | 0.25 |\n\n*Source: Kato, Suda & Tamada, table 4, §4.*\n"
        );
    }

    #[test]
    fn transposed_rows_become_columns() {
        assert!(
            table(true)
                .markdown()
                .starts_with("| n | 1 | 4 |\n|---|---|---|\n| value | 0.5 | 0.25 |\n")
        );
    }
}
