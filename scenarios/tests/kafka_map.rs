//! docs/kafka-map.md, the map from Kafka's classes and methods to regroup's files and items, is
//! generated from the doc comments of the workspace, so it cannot go stale: this test regenerates it
//! and fails when the checked-in file differs. `REGROUP_BLESS=1 cargo test -p scenarios --test
//! kafka_map` rewrites it.
//!
//! What counts as a reference to Kafka in a doc comment (`///` on an item, `//!` on a module):
//! * anywhere in it, a backticked `Class.method`, `Class#method` or `Class.method(...)` whose class is
//!   UpperCamelCase (`GroupMetadataManager.streamsGroupHeartbeat`);
//! * at its very start, a backticked lowerCamelCase name, the convention for "this item is Kafka's
//!   method of that name" (`/// \`throwIfStreamsGroupIsFull\`: ...`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const CRATES: [&str; 5] = ["protocol", "coordinator", "members", "sim", "scenarios"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn is_upper_camel(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s.chars().any(|c| c.is_ascii_lowercase())
}

fn is_lower_camel(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s.chars().any(|c| c.is_ascii_uppercase())
}

/// The Kafka names a doc comment refers to.
fn kafka_names(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts: Vec<&str> = doc.split('`').collect();
    for (i, code) in parts.iter().enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let code = code.trim().trim_end_matches("()");
        let code = code.split('(').next().unwrap_or(code);
        if let Some((class, method)) = code.split_once(['.', '#'])
            && is_upper_camel(class)
            && (is_lower_camel(method)
                || method.chars().all(|c| c.is_ascii_lowercase()) && !method.is_empty())
        {
            out.push(format!("{class}.{method}"));
        } else if i == 1 && parts[0].trim().is_empty() && is_lower_camel(code) {
            out.push(code.to_string());
        }
    }
    out
}

/// The name of the item a doc comment documents, from the first line after it.
fn item_name(line: &str) -> Option<String> {
    let l = line.trim();
    let l = l
        .strip_prefix("pub(crate) ")
        .or_else(|| l.strip_prefix("pub(super) "))
        .or_else(|| l.strip_prefix("pub "))
        .unwrap_or(l);
    let l = l
        .strip_prefix("async ")
        .or_else(|| l.strip_prefix("const fn "))
        .map(|r| {
            if l.starts_with("const fn ") {
                format!("fn {r}")
            } else {
                r.to_string()
            }
        })
        .unwrap_or_else(|| l.to_string());
    for kw in [
        "fn ", "struct ", "enum ", "trait ", "mod ", "const ", "type ", "static ",
    ] {
        if let Some(rest) = l.strip_prefix(kw) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return (!name.is_empty()).then_some(name);
        }
    }
    if let Some(rest) = l.strip_prefix("impl") {
        let rest = rest.trim_start_matches(|c: char| c != ' ').trim();
        let rest = rest.split(" where").next().unwrap_or(rest);
        let rest = rest.trim_end_matches('{').trim();
        return Some(format!("impl {rest}"));
    }
    None
}

/// Every (Kafka name, file, item) of the workspace, sorted.
fn entries() -> BTreeSet<(String, String, String)> {
    let root = root();
    let mut files = Vec::new();
    for c in CRATES {
        rust_files(&root.join(c).join("src"), &mut files);
    }
    let mut out = BTreeSet::new();
    for f in files {
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.contains("/messages/") || rel.ends_with("schema/tables.rs") {
            continue; // generated wire code
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let module_doc: String = lines
            .iter()
            .take_while(|l| l.trim_start().starts_with("//!") || l.trim().is_empty())
            .filter_map(|l| l.trim_start().strip_prefix("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        for name in kafka_names(&module_doc) {
            out.insert((name, rel.clone(), "(module)".to_string()));
        }
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].trim_start().starts_with("///") {
                i += 1;
                continue;
            }
            let mut doc = Vec::new();
            while i < lines.len() && lines[i].trim_start().starts_with("///") {
                doc.push(lines[i].trim_start().trim_start_matches("///").trim());
                i += 1;
            }
            while i < lines.len() && lines[i].trim_start().starts_with("#[") {
                i += 1;
            }
            let Some(item) = lines.get(i).and_then(|l| item_name(l)) else {
                continue;
            };
            for name in kafka_names(&doc.join(" ")) {
                out.insert((name, rel.clone(), item.clone()));
            }
        }
    }
    out
}

fn render(entries: &BTreeSet<(String, String, String)>) -> String {
    let mut s = String::from(
        "# Kafka -> regroup\n\n\
         Where regroup holds what Apache Kafka 4.4.0 does in a class or method: every Kafka name a doc\n\
         comment of the workspace refers to, with the file and item that comment documents. Generated by\n\
         `scenarios/tests/kafka_map.rs` from the doc comments (`REGROUP_BLESS=1 cargo test -p scenarios\n\
         --test kafka_map` rewrites it; the test fails when this file is stale). A name without a class is\n\
         a method an item's doc comment starts with.\n\n\
         | Kafka | regroup file | item |\n|---|---|---|\n",
    );
    for (kafka, file, item) in entries {
        s.push_str(&format!("| `{kafka}` | `{file}` | `{item}` |\n"));
    }
    s
}

#[test]
fn kafka_names_are_found_where_the_convention_puts_them() {
    assert_eq!(
        kafka_names("`GroupMetadataManager.streamsGroupHeartbeat` and `Foo#barBaz()`"),
        vec!["GroupMetadataManager.streamsGroupHeartbeat", "Foo.barBaz"]
    );
    assert_eq!(
        kafka_names("`throwIfStreamsGroupIsFull`: a join beyond"),
        vec!["throwIfStreamsGroupIsFull"]
    );
    // A camelCase name elsewhere than at the start is a field or a word, not claimed.
    assert!(kafka_names("the `memberEpoch` field").is_empty());
    assert!(kafka_names("`sim::known` and `a.b`").is_empty());
    assert_eq!(
        item_name("pub(crate) fn heartbeat_inner("),
        Some("heartbeat_inner".into())
    );
    assert_eq!(
        item_name("impl GroupValidation for StreamsGroup {"),
        Some("impl GroupValidation for StreamsGroup".into())
    );
}

#[test]
fn kafka_map_is_current() {
    let entries = entries();
    assert!(entries.len() > 100, "only {} entries", entries.len());
    let text = render(&entries);
    let path = root().join("docs/kafka-map.md");
    if std::env::var_os("REGROUP_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == text,
        "docs/kafka-map.md is stale: run `REGROUP_BLESS=1 cargo test -p scenarios --test kafka_map`"
    );
}
