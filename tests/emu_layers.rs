//! The emulator's modules stay layered: each uses only modules of its own layer or lower ones,
//! and no two use each other, even through others. The layers are listed in the `//!` doc of
//! `src/emu/mod.rs`; this reads every `use` and every `super::`/`crate::emu::` path in
//! `src/emu/**/*.rs` (test code left out), follows imports that re-export an item to the
//! module that defines it, and names each edge that breaks the order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The emulator's root module (`src/emu/mod.rs`).
const ROOT: &str = "emu";

struct Module {
    /// Path below `emu` (empty for the root).
    path: Vec<String>,
    /// The source with comments, literals and test-only items removed.
    code: String,
}

#[test]
fn emulator_modules_import_only_from_their_layer_or_below_and_never_in_a_circle() {
    // `EMU_LAYERS_SRC` (another tree's `src/emu`) and `EMU_LAYERS_PRINT` (list the edges):
    // for looking at the graph by hand.
    let dir = std::env::var_os("EMU_LAYERS_SRC").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("src/emu"),
        PathBuf::from,
    );
    let modules = modules(&dir);
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let aliases: BTreeMap<String, BTreeMap<String, Vec<String>>> = modules
        .iter()
        .map(|(n, m)| (n.clone(), aliases_of(m, &names)))
        .collect();

    let mut problems = Vec::new();
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (name, m) in &modules {
        for path in paths_in(m, &names, &aliases[name]) {
            let Some(to) = resolve(&path, &names, &aliases, 0) else {
                continue;
            };
            if &to != name {
                edges
                    .entry(name.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| path.join("::"));
            }
        }
    }
    if std::env::var_os("EMU_LAYERS_PRINT").is_some() {
        for (from, tos) in &edges {
            let tos: Vec<&str> = tos.keys().map(String::as_str).collect();
            println!("{from} -> {}", tos.join(", "));
        }
    }
    let layers = layers(&std::fs::read_to_string(dir.join("mod.rs")).unwrap());
    for name in modules.keys() {
        if !layers.contains_key(name) {
            problems.push(format!(
                "module `{name}` is in no layer: add it to the list in src/emu/mod.rs"
            ));
        }
    }
    for name in layers.keys() {
        if !modules.contains_key(name) {
            problems.push(format!("the layer list names `{name}`, which is no module"));
        }
    }
    for (from, tos) in &edges {
        for (to, via) in tos {
            if let (Some(&lf), Some(&lt)) = (layers.get(from), layers.get(to)) {
                if lt > lf {
                    problems.push(format!(
                        "`{from}` (layer {lf}) uses `{to}` (layer {lt}, higher) through `{via}`"
                    ));
                }
            }
        }
    }
    if let Some(cycle) = find_cycle(&edges) {
        problems.push(format!("a circle of imports: {}", cycle.join(" -> ")));
    }
    assert!(
        problems.is_empty(),
        "the emulator's layering is broken:\n  {}",
        problems.join("\n  ")
    );
}

/// The check finds what it is meant to: an import of a higher layer, and a circle.
#[test]
fn the_check_sees_an_upward_import_and_a_circle() {
    let names: BTreeSet<String> = ["a", "b", "b::c"].iter().map(|s| s.to_string()).collect();
    let a = Module {
        path: vec!["a".into()],
        code: strip("use super::b::c::{X, Y as Z};\nfn f() { crate::emu::b::g() }\n"),
    };
    let aliases = BTreeMap::new();
    let paths = paths_in(&a, &names, &BTreeMap::new());
    let targets: BTreeSet<String> = paths
        .iter()
        .filter_map(|p| resolve(p, &names, &aliases, 0))
        .collect();
    assert_eq!(
        targets,
        ["b", "b::c"].iter().map(|s| s.to_string()).collect()
    );
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    edges
        .entry("a".into())
        .or_default()
        .insert("b".into(), String::new());
    assert!(find_cycle(&edges).is_none());
    edges
        .entry("b".into())
        .or_default()
        .insert("a".into(), String::new());
    assert_eq!(find_cycle(&edges).unwrap(), vec!["a", "b", "a"]);
    // Test code is left out, comments and strings too.
    let code =
        strip("#[cfg(test)]\nmod tests { use super::b; }\n// super::b\nfn g() { \"super::b\"; }");
    assert!(!code.contains("super::b"), "{code}");
}

/// Every module of the emulator by name (`emu` for the root, `block::step`...).
fn modules(dir: &Path) -> BTreeMap<String, Module> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    let mut paths: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(dir).unwrap().with_extension("");
        let mut segs: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if segs.last().is_some_and(|s| s == "mod") {
            segs.pop();
        }
        paths.insert(f.canonicalize().unwrap(), segs);
    }
    // `#[path = "..."] mod name;` mounts a file elsewhere in the tree.
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let owner = paths[&f.canonicalize().unwrap()].clone();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("#[path = \"") {
            rest = &rest[i + 10..];
            let end = rest.find('"').unwrap();
            let target = f.parent().unwrap().join(&rest[..end]);
            let after = &rest[end..];
            let m = after.find("mod ").unwrap();
            let name: String = after[m + 4..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut p = owner.clone();
            p.push(name);
            paths.insert(target.canonicalize().unwrap(), p);
        }
    }
    paths
        .into_iter()
        .map(|(file, path)| {
            let name = if path.is_empty() {
                ROOT.to_string()
            } else {
                path.join("::")
            };
            let code = strip(&std::fs::read_to_string(&file).unwrap());
            (name, Module { path, code })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The layer of each module, from the numbered list in the `//!` doc of `src/emu/mod.rs`
/// (`//! 3. what it is: `a`, `b::c`` and its indented continuation lines).
fn layers(root: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in root.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim_start();
        let number: String = doc.chars().take_while(char::is_ascii_digit).collect();
        let listed = if !number.is_empty() && doc[number.len()..].starts_with(". ") {
            current = Some(number.parse::<u32>().unwrap());
            doc.split_once(':').map_or("", |(_, names)| names)
        } else if current.is_some() && line.starts_with("//!    ") {
            doc
        } else {
            current = None;
            ""
        };
        if let Some(layer) = current {
            for (i, part) in listed.split('`').enumerate() {
                if i % 2 == 1 {
                    out.insert(part.to_string(), layer);
                }
            }
        }
    }
    assert!(
        !out.is_empty(),
        "no layer list in the doc of src/emu/mod.rs"
    );
    out
}

/// `text` without comments, without the contents of string and character literals, and
/// without the items marked `#[cfg(test)]`.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut code = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let step = if after_ident && b[i] == b'r' {
            0
        } else {
            non_code(&text[i..])
        };
        if step > 0 {
            code.push(' ');
            i += step;
        } else {
            let ch = text[i..].chars().next().unwrap();
            code.push(ch);
            i += ch.len_utf8();
        }
    }
    // Leave out each item marked `#[cfg(test)]`: up to its `;`, or to the end of its block.
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let Some(stop) = item.find(['{', ';']) else {
            rest = "";
            break;
        };
        let mut end = stop + 1;
        if item.as_bytes()[stop] == b'{' {
            let mut depth = 0;
            for (k, c) in item[stop..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = stop + k + 1;
                    break;
                }
            }
        }
        rest = &item[end.min(item.len())..];
    }
    out.push_str(rest);
    out
}

/// Bytes of the comment, string or character literal `s` starts with (0: code, or a lifetime).
fn non_code(s: &str) -> usize {
    let b = s.as_bytes();
    if b.starts_with(b"//") {
        return b.iter().position(|&c| c == b'\n').unwrap_or(b.len());
    }
    if b.starts_with(b"/*") {
        let (mut i, mut depth) = (0, 0);
        while i < b.len() {
            if b[i..].starts_with(b"/*") {
                depth += 1;
                i += 2;
            } else if b[i..].starts_with(b"*/") {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            } else {
                i += 1;
            }
        }
        return b.len();
    }
    if b.starts_with(b"r\"") || b.starts_with(b"r#") {
        let hashes = b[1..].iter().take_while(|&&c| c == b'#').count();
        if b.get(1 + hashes) == Some(&b'"') {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = &s[2 + hashes..];
            return 2 + hashes + body.find(&close).map_or(body.len(), |e| e + close.len());
        }
        return 0;
    }
    if b[0] == b'"' {
        let mut i = 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        return (i + 1).min(b.len());
    }
    if b[0] == b'\'' {
        if b.get(1) == Some(&b'\\') {
            return s[2..].find('\'').map_or(b.len(), |e| e + 3);
        }
        // 'x' (any one character) is a literal; 'a without a closing quote a lifetime.
        if let Some(c) = s[1..].chars().next() {
            let n = 1 + c.len_utf8();
            if b.get(n) == Some(&b'\'') {
                return n + 1;
            }
        }
    }
    0
}

/// Every path a module names: the leaves of its `use` trees (relative ones made absolute) and
/// the `super::`/`crate::emu::` paths in its code, each as segments from the root (`crate`
/// and `emu` dropped). External paths (`std::`, `crate::ptx::`) are left out.
fn paths_in(
    m: &Module,
    names: &BTreeSet<String>,
    aliases: &BTreeMap<String, Vec<String>>,
) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = uses(&m.code)
        .into_iter()
        .flat_map(|u| use_leaves(&u))
        .filter_map(|(p, _)| absolute(&p, &m.path, names))
        .collect();
    // Paths in code, outside `use` declarations: from `super`, `crate::emu`, a child module
    // or a name the module imported (`race::check::report_cross` after `use super::race`).
    let code = without_uses(&m.code);
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let word_start =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        let len = code[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(code.len() - i);
        if !word_start || len == 0 || !code[i..i + len].contains("::") {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let segs: Vec<String> = segments(&code[i..i + len]).collect();
        i += len;
        let Some(first) = segs.first() else {
            continue;
        };
        let path = match aliases.get(first) {
            Some(target) if !matches!(first.as_str(), "super" | "crate" | "self") => {
                let mut p = target.clone();
                p.extend(segs[1..].iter().cloned());
                Some(p)
            }
            _ => absolute(&segs, &m.path, names),
        };
        out.extend(path);
    }
    out
}

/// The names a module brings into scope with `use`, each with the absolute path it stands for.
fn aliases_of(m: &Module, names: &BTreeSet<String>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for u in uses(&m.code) {
        for (p, bound) in use_leaves(&u) {
            if let (Some(abs), Some(bound)) = (absolute(&p, &m.path, names), bound) {
                out.insert(bound, abs);
            }
        }
    }
    out
}

/// The text of each `use` declaration (after `use`, up to its `;`).
fn uses(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while let Some(j) = code[i..].find("use ") {
        let at = i + j;
        let before = at.checked_sub(1).map(|k| b[k]);
        if before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_')) {
            let end = code[at..].find(';').map_or(code.len(), |e| at + e);
            out.push(code[at + 4..end].to_string());
            i = end;
        } else {
            i = at + 4;
        }
    }
    out
}

fn without_uses(code: &str) -> String {
    let mut out = String::new();
    let b = code.as_bytes();
    let mut i = 0;
    while let Some(j) = code[i..].find("use ") {
        let at = i + j;
        let before = at.checked_sub(1).map(|k| b[k]);
        out.push_str(&code[i..at]);
        if before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_')) {
            i = code[at..].find(';').map_or(code.len(), |e| at + e);
        } else {
            out.push_str("use ");
            i = at + 4;
        }
    }
    out.push_str(&code[i..]);
    out
}

/// The leaves of a `use` tree: each full path, and the name it binds (`None` for `*`).
fn use_leaves(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    // `X as Y` becomes `X@Y` before the spaces go.
    let tree: String = tree
        .split_whitespace()
        .map(|w| if w == "as" { "@" } else { w })
        .collect();
    let mut out = Vec::new();
    leaves(&tree, &mut Vec::new(), &mut out);
    out
}

fn leaves(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    if let Some(open) = tree.find('{') {
        let n = prefix.len();
        prefix.extend(segments(&tree[..open]));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        for part in split_top(inner) {
            leaves(part, prefix, out);
        }
        prefix.truncate(n);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once('@') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (tree, None),
    };
    let mut full = prefix.clone();
    full.extend(segments(path));
    let bound = match (alias, full.last().map(String::as_str)) {
        (Some(a), _) => Some(a),
        (None, Some("*")) => None,
        (None, Some("self")) => {
            full.pop();
            full.last().cloned()
        }
        (None, last) => last.map(str::to_string),
    };
    out.push((full, bound));
}

fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Split `a,b::{c,d},e` at its top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `segs` (as written in module `at`) as a path from the root, or `None` when it leads
/// outside the emulator.
fn absolute(segs: &[String], at: &[String], names: &BTreeSet<String>) -> Option<Vec<String>> {
    let first = segs.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => {
            // `crate::emu` alone is the visibility `pub(in crate::emu)`, not a use.
            if segs.get(1).map(String::as_str) != Some("emu") || segs.len() < 3 {
                return None;
            }
            return Some(segs[2..].to_vec());
        }
        "self" => at.to_vec(),
        "super" => at.to_vec(),
        _ => {
            // A child module of `at`, or an outside crate.
            let mut child = at.to_vec();
            child.push(first.clone());
            if names.contains(&child.join("::")) {
                child.extend(segs[1..].iter().cloned());
                return Some(child);
            }
            return None;
        }
    };
    let mut rest = segs;
    if first == "self" {
        rest = &segs[1..];
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The module an absolute path leads to: its longest prefix that is a module, or, when the
/// next segment is a name that module imported, where that name comes from.
fn resolve(
    path: &[String],
    names: &BTreeSet<String>,
    aliases: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
    depth: u32,
) -> Option<String> {
    let name_of = |p: &[String]| {
        if p.is_empty() {
            ROOT.to_string()
        } else {
            p.join("::")
        }
    };
    let mut k = 0;
    while k < path.len() && names.contains(&name_of(&path[..k + 1])) {
        k += 1;
    }
    let module = name_of(&path[..k]);
    if !names.contains(&module) {
        return None;
    }
    if let Some(item) = path.get(k) {
        if let Some(target) = aliases.get(&module).and_then(|a| a.get(item)) {
            if depth < 8 && target.as_slice() != path {
                let mut next = target.clone();
                next.extend(path[k + 1..].iter().cloned());
                return resolve(&next, names, aliases, depth + 1).or(Some(module));
            }
        }
    }
    Some(module)
}

/// A circle among the edges, if any, as the modules along it (the first repeated at the end).
fn find_cycle(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for to in edges.get(n).into_iter().flat_map(|t| t.keys()) {
            match state.get(to.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == to).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(to.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(to, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if !state.contains_key(n) {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}
