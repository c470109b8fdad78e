//! The layering rule of `src/lib.rs`: each module of the crate uses only
//! the modules above it in the "where each concept lives" list there (and
//! those on its own line). Read from the source: every `crate::name` path
//! in a module's code (its files, comments and `#[cfg(test)]` modules left
//! out) names a module directly, or an item `lib.rs` re-exports from one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The modules of the list in `lib.rs`, each with its level (0 the lowest
/// line, the ground floor, is written first).
fn levels(lib: &str) -> BTreeMap<String, usize> {
    let start = lib.find("// Where each concept lives").expect("lib.rs has the \"where each concept lives\" list");
    let mut levels = BTreeMap::new();
    let lines = lib[start..].lines().skip(1).skip_while(|l| !l.starts_with("// `"));
    for (level, line) in lines.take_while(|l| l.starts_with("// `")).enumerate() {
        let names = line.trim_start_matches("// ").split("  ").next().unwrap_or("");
        for name in names.split(',') {
            levels.insert(name.trim().trim_matches('`').to_string(), level);
        }
    }
    levels
}

/// What `lib.rs` re-exports: item name -> the module it comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let code = strip(lib);
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement.rsplit("pub use ").next().filter(|_| statement.contains("pub use ")) else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else { continue };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let item = item.trim();
            if !item.is_empty() {
                map.insert(item.to_string(), module.trim().to_string());
            }
        }
    }
    map
}

/// The code of a source file: comments removed, and everything from the
/// first `#[cfg(test)]` module on left out (tests may reach anywhere).
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            if lines.peek().is_some_and(|next| next.contains('{')) {
                break; // `mod tests { … }`: the rest of the file.
            }
            lines.next(); // `mod oracle;`: a test-only module.
            continue;
        }
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The `.rs` files of module `name`: `src/name.rs` and everything under
/// `src/name/`, except `tests.rs` files (test modules).
fn files(name: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let file = src().join(format!("{name}.rs"));
    if file.exists() {
        files.push(file);
    }
    let mut dirs = vec![src().join(name)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") && !path.ends_with("tests.rs") {
                files.push(path);
            }
        }
    }
    files
}

/// Every `crate::name` of `code`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `stc_crate::`, not a path of this crate.
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a, b::c};`
            let end = group.find('}').unwrap_or(group.len());
            names.extend(group[..end].split(',').map(|p| p.trim().split("::").next().unwrap_or("").to_string()));
        } else {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            names.push(rest[..end].to_string());
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

#[test]
fn each_module_uses_only_the_modules_above_it_in_lib_rs() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let levels = levels(&lib);
    assert!(levels.len() >= 10, "the list in lib.rs names {} modules: {levels:?}", levels.len());
    let reexports = reexports(&lib);
    // Every module declared in lib.rs is in the list.
    for line in strip(&lib).lines() {
        if let Some(name) = line.trim().strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
            assert!(levels.contains_key(name), "module `{name}` is declared in lib.rs but not in its list");
        }
    }
    let mut violations = Vec::new();
    let mut checked = 0;
    for (module, &level) in &levels {
        let files = files(module);
        assert!(!files.is_empty(), "no source for module `{module}`");
        for file in files {
            let code = strip(&std::fs::read_to_string(&file).unwrap());
            for name in crate_paths(&code) {
                checked += 1;
                let used = if levels.contains_key(&name) { Some(name.clone()) } else { reexports.get(&name).cloned() };
                // Anything else is an item of lib.rs itself (`crate::Result`, `crate::VERSION`).
                let Some(used) = used else { continue };
                if levels[&used] > level {
                    violations.push(format!(
                        "{}: `{module}` uses `crate::{name}` (module `{used}`), listed after it in lib.rs (a module uses only those listed before it)",
                        file.strip_prefix(src()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "found only {checked} crate paths");
    assert!(violations.is_empty(), "the layering rule is broken:\n{}", violations.join("\n"));
}

#[test]
fn the_check_sees_a_use_from_below() {
    // The parsing the rule above relies on, on a made-up module.
    let code = strip(
        "use crate::parser::Sink;\nuse crate::{error::Error, scan};\n// crate::write_stc in a comment\nfn f() { crate::strings::x() }\n#[cfg(test)]\nmod tests {\n    use crate::write_stc;\n}\n",
    );
    assert_eq!(crate_paths(&code), ["parser", "error", "scan", "strings"]);
    let lib = "// Where each concept lives (…):\n// `error`, `options`   a\n// `scan`   b\n// `parser`  c\nmod x;\npub use parser::{Sink, Abort};\npub use error::Error;\n";
    let levels = levels(lib);
    assert_eq!((levels["error"], levels["options"], levels["scan"], levels["parser"]), (0, 0, 1, 2));
    let reexports = reexports(lib);
    assert_eq!((reexports["Sink"].as_str(), reexports["Error"].as_str()), ("parser", "error"));
}
