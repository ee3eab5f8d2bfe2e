//! What [`crate::build_this_crate`] can tell from a crate's library source before compiling it
//! for the GPU: rustc, given a library without `no_std`, reports first every `std` macro it
//! cannot find (hundreds of lines for one workload) and only then the missing `std` crate, so
//! the one line that says what to add is best said before rustc runs.

use std::path::{Path, PathBuf};

/// The library's root source file: `[lib] path` in `Cargo.toml` if set, else `src/lib.rs`.
pub(crate) fn library_root(crate_dir: &Path, manifest: &str) -> PathBuf {
    crate_dir.join(lib_path(manifest).unwrap_or("src/lib.rs"))
}

/// `path` of the `[lib]` table, read line by line: a manifest that writes it any other way
/// (an inline table, say) gets the default, and then at worst rustc's own errors.
fn lib_path(manifest: &str) -> Option<&str> {
    let mut in_lib = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_lib = line == "[lib]";
            continue;
        }
        if !in_lib {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim() == "path"
        {
            return Some(value.trim().trim_matches(['"', '\'']));
        }
    }
    None
}

/// Whether a crate root (`src/lib.rs`'s text) names `no_std` in none of its inner attributes
/// (`#![no_std]`, `#![cfg_attr(target_arch = "nvptx64", no_std, ...)]`). Comments, doc
/// comments included, do not count: a library's docs may well say it is `no_std` on the GPU.
pub(crate) fn missing_no_std(lib_rs: &str) -> bool {
    let code = without_comments(lib_rs);
    let mut rest = code.as_str();
    while let Some(at) = rest.find('#') {
        rest = &rest[at + 1..];
        let Some(after_bang) = rest.trim_start().strip_prefix('!') else {
            continue;
        };
        let Some(body) = after_bang.trim_start().strip_prefix('[') else {
            continue;
        };
        let attribute = &body[..bracket_end(body)];
        if has_word(attribute, "no_std") {
            return false;
        }
    }
    true
}

/// Where the attribute body that `text` starts (after its `[`) ends: at its matching `]`, or
/// the end of the text.
fn bracket_end(text: &str) -> usize {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Whether `word` occurs in `text` as an identifier of its own (not inside `no_std_alloc`).
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// `text` with `//` and `/* */` comments (nested) replaced by a space and string literals
/// emptied, so that neither a `"//"` in a string starts a comment nor a `no_std` in one counts.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut depth = 1;
                let mut last = ' ';
                for c in chars.by_ref() {
                    match (last, c) {
                        ('/', '*') => {
                            depth += 1;
                            last = ' ';
                            continue;
                        }
                        ('*', '/') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            last = ' ';
                            continue;
                        }
                        _ => {}
                    }
                    last = c;
                }
                out.push(' ');
            }
            ('"', _) => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_that_says_no_std_for_the_gpu_passes() {
        for root in [
            "#![cfg_attr(target_arch = \"nvptx64\", no_std, feature(abi_ptx))]\nuse x::y;",
            "//! Docs.\n#![no_std]\n",
            // As rustfmt breaks a long attribute.
            "#![cfg_attr(\n    target_arch = \"nvptx64\",\n    no_std,\n    feature(abi_ptx)\n)]",
            "#![cfg_attr(not(feature = \"std\"), no_std)]",
            "# ! [ no_std ]",
        ] {
            assert!(!missing_no_std(root), "{root}");
        }
    }

    #[test]
    fn a_library_without_it_is_caught_whatever_its_docs_say() {
        for root in [
            "//! A workload, compiled for the GPU too, where it is `no_std`.\nuse x::y;",
            "#![cfg_attr(target_arch = \"nvptx64\", feature(abi_ptx))]\n",
            "/* #![no_std] */\n#![warn(missing_docs)]",
            "/* nested /* */ #![no_std] */ fn f() {}",
            "#![cfg_attr(target_arch = \"nvptx64\", no_std_alloc)]",
            "const S: &str = \"// #![no_std]\"; #[derive(Debug)] struct no_std;",
            "",
        ] {
            assert!(missing_no_std(root), "{root}");
        }
    }

    #[test]
    fn the_library_root_is_the_manifests_lib_path_or_src_lib_rs() {
        let dir = Path::new("/c");
        let plain = "[package]\nname = \"w\"\npath = \"not/this.rs\"\n[dependencies]\n";
        assert_eq!(library_root(dir, plain), Path::new("/c/src/lib.rs"));
        let own =
            "[package]\nname = \"w\"\n\n[lib]\nname = \"w\"\npath = \"gpu/root.rs\"\n[features]\n";
        assert_eq!(library_root(dir, own), Path::new("/c/gpu/root.rs"));
    }
}
