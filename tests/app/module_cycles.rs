//! No import cycle between the files and folders of any folder (issue 9, issue 37): in every
//! folder of `src/` (the front-end), `crates/stickslip-sim/src/` (the simulator) and
//! `crates/stickslip-core/src/` (the core), its children (each file, each
//! subfolder with all it holds) form a graph whose edges are the paths in code (not in comments
//! or strings) from a file under one child to a module under another (`crate::a::b`,
//! `super::x`, `self::y`, and `use child::z` naming a module of the file's own), and that graph
//! must have no cycle. Each crate's top-level modules and `app/`'s submodules are some of those
//! folders. Between the crates, Cargo forbids a cycle: the core depends on no crate of ours, the
//! simulator on the core only, the front-end on both.
//! The graphs are read from the sources here, independently of the compiler, so a cycle is
//! caught however it is written (`use crate::x`, `crate::x::f()` in code, `use crate::{x, y}`,
//! nested groups).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of `text` without `//` comments (doc comments included: an intra-doc link is not a
/// dependency) and without the contents of string literals.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut prev = ' ';
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_string && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            } else if !in_string {
                out.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            i += 1;
        }
        out.push('\n');
    }
    out
}

/// The top-level modules `code` names through `crate::`.
fn named_modules(code: &str) -> BTreeSet<String> {
    named_after(code, "crate::")
}

/// The modules `code` names through `prefix` (`crate::`, `crate::app::`, `super::`): the
/// identifier after it, or each item of a `{a, b::c}` group after it.
fn named_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        // `crate::app::` inside `my_crate::app::` or `super::` inside `super::super::` is not
        // this prefix.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// A cycle in `graph`, if there is one, as the list of its modules.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(node, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        for named in named_modules(&code_only(&text)) {
            if named != module {
                edges.insert(named);
            }
        }
    }
    graph
}

/// The graph between the submodules of `src/app/` (a file `app/x.rs` or a folder `app/x/` each;
/// `app/mod.rs` is the parent, not a node).
fn app_graph(app: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(app, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(app).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        if module == "mod" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let mut named = named_after(&code, "crate::app::");
        // In `app/x.rs`, `super::y` is app's `y`; in `app/x/…`, `super::` stays inside x.
        if relative.components().count() == 1 {
            named.extend(named_after(&code, "super::"));
        }
        let edges = graph.entry(module.clone()).or_default();
        for n in named {
            if n != module && n != "self" && n != "super" {
                edges.insert(n);
            }
        }
    }
    graph
}

/// A module's path from its crate root: `src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`, the
/// root itself `[]`.
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let mut path: Vec<String> = file
        .strip_prefix(root)
        .unwrap()
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// The paths that start at `code[at..]`: `a::b::c` is one, `a::{b, c::{d, e}}` three
/// (`a::b`, `a::c::d`, `a::c::e`).
fn paths_from(code: &str, at: usize) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut i = at;
    let mut segments = Vec::new();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            let mut depth = 0;
            let mut start = i + 1;
            let mut items = Vec::new();
            for (j, &b) in bytes.iter().enumerate().skip(i) {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            items.push(&code[start..j]);
                            break;
                        }
                    }
                    b',' if depth == 1 => {
                        items.push(&code[start..j]);
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            let mut out = Vec::new();
            for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
                for tail in paths_from(item, 0) {
                    let mut path = segments.clone();
                    path.extend(tail);
                    out.push(path);
                }
            }
            return if out.is_empty() { vec![segments] } else { out };
        }
        let end = code[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(code.len(), |n| i + n);
        if end == i {
            return vec![segments];
        }
        segments.push(code[i..end].to_owned());
        i = end;
        if code[i..].starts_with("::") {
            i += 2;
        } else {
            return vec![segments];
        }
    }
}

/// Every module path a file at `module` names: `crate::…` from the root, `super::…` and
/// `self::…` from the file's module, and `use x::…` where `x` is a module of the file's own
/// (`is_module` says which paths are modules on disk).
fn named_paths(
    code: &str,
    module: &[String],
    is_module: &dyn Fn(&[String]) -> bool,
) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for prefix in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for tail in paths_from(code, at + prefix.len()) {
                let mut base: Vec<String> = match prefix {
                    "crate::" => Vec::new(),
                    "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                    _ => module.to_vec(),
                };
                let mut tail = tail.as_slice();
                while tail.first().is_some_and(|s| s == "super") {
                    base.pop();
                    tail = &tail[1..];
                }
                base.extend(tail.iter().cloned());
                out.push(base);
            }
        }
    }
    for (at, _) in code.match_indices("use ") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        for tail in paths_from(code, at + 4) {
            let Some(first) = tail.first() else { continue };
            if matches!(first.as_str(), "crate" | "super" | "self") {
                continue;
            }
            let mut path = module.to_vec();
            path.push(first.clone());
            if is_module(&path) {
                path.extend(tail[1..].iter().cloned());
                out.push(path);
            }
        }
    }
    out
}

/// For every folder under `root` (the root too), the graph between its children, keyed by the
/// folder's module path.
fn folder_graphs(root: &Path) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(root, f)).collect();
    let is_module = |path: &[String]| modules.contains(path);
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let from = module_path(root, file);
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        for to in named_paths(&code, &from, &is_module) {
            // The folder is the longest common prefix; an edge joins its two children.
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let folder = from[..common].to_vec();
                if !root.join(folder.join("/")).is_dir() {
                    continue;
                }
                graphs
                    .entry(folder)
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .insert(to[common].clone());
            }
        }
    }
    graphs
}

/// Every folder's cycle, one line each.
fn folder_cycles(root: &Path) -> Vec<String> {
    folder_graphs(root)
        .iter()
        .filter_map(|(folder, graph)| {
            find_cycle(graph).map(|c| format!("{}/: {}", folder.join("/"), c.join(" -> ")))
        })
        .collect()
}

#[test]
fn no_cycle_between_the_children_of_any_folder() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for root in [
        "src",
        "crates/stickslip-sim/src",
        "crates/stickslip-core/src",
    ] {
        let root = manifest.join(root);
        let graphs = folder_graphs(&root);
        assert!(!graphs.is_empty(), "no graph read under {}", root.display());
        let cycles = folder_cycles(&root);
        assert!(
            cycles.is_empty(),
            "import cycles under {}:\n{}",
            root.display(),
            cycles.join("\n")
        );
    }
    // The graphs must see edges that certainly exist, or they prove nothing: a file to a file in
    // its folder, a nested folder to another, and `super::`.
    let graphs = folder_graphs(&manifest.join("src"));
    let at = |folder: &[&str], from: &str, to: &str| {
        let key: Vec<String> = folder.iter().map(|s| s.to_string()).collect();
        assert!(
            graphs
                .get(&key)
                .and_then(|g| g.get(from))
                .is_some_and(|e| e.contains(to)),
            "{folder:?}: no edge {from} -> {to}: {:?}",
            graphs.get(&key)
        );
    };
    at(&[], "app", "view");
    at(&["app"], "cli", "plot");
    let sim = folder_graphs(&manifest.join("crates/stickslip-sim/src"));
    assert!(sim[&vec!["sweep".to_string()]]["collect"].contains("dir"));
    let core = folder_graphs(&manifest.join("crates/stickslip-core/src"));
    assert!(core[&vec!["contact".to_string()]]["potentials"].contains("pair"));
}

#[test]
fn the_folder_graphs_find_a_cycle_two_levels_down() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write("lib.rs", "pub mod a;\n");
    write("a/mod.rs", "pub mod b;\npub mod c;\npub use b::Thing;\n");
    write("a/b.rs", "use crate::a::c::{self, x::{Y}};\n");
    write("a/c/mod.rs", "pub mod x;\n");
    write(
        "a/c/x.rs",
        "// use crate::a::b;\nfn f() { let s = \"crate::a::b\"; }\n",
    );
    assert!(folder_cycles(root).is_empty(), "{:?}", folder_graphs(root));
    write("a/c/x.rs", "fn f() { super::super::b::g(); }\n");
    assert_eq!(folder_cycles(root), ["a/: b -> c -> b"]);
}

#[test]
fn no_cycle_between_the_submodules_of_app() {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
    let graph = app_graph(&app);
    // Edges that certainly exist, or the graph proves nothing.
    assert!(graph["cli"].contains("plot"), "{graph:?}");
    assert!(graph["cli"].contains("rigid_command"), "{graph:?}");
    assert!(graph["plot"].contains("output"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle between the submodules of app: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn no_cycle_between_top_level_modules() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let front = module_graph(&manifest.join("src"));
    let sim = module_graph(&manifest.join("crates/stickslip-sim/src"));
    // The graphs must see the modules and edges that certainly exist, or they prove nothing.
    assert!(front["app"].contains("view"), "{front:?}");
    assert!(front["view"].contains("run"), "{front:?}");
    assert!(sim["gpu"].contains("cross_check"), "{sim:?}");
    assert!(sim["run"].contains("scene"), "{sim:?}");
    for (name, graph) in [("the front-end", front), ("the simulator", sim)] {
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "import cycle between {name}'s top-level modules: {}",
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_the_parser_reads_groups() {
    let code = code_only(
        "use crate::{gpu, scene::Scene};\n// crate::app in a comment\nlet s = \"crate::app\";\nfn f() { crate::energy::x(); }\n",
    );
    assert_eq!(
        named_modules(&code),
        ["energy", "gpu", "scene"].map(String::from).into()
    );
    let code = code_only(
        "use crate::app::{cli::CliError, view};\nuse super::output;\nuse super::super::x;\nuse other_crate::app::plot;\n",
    );
    assert_eq!(
        named_after(&code, "crate::app::"),
        ["cli", "view"].map(String::from).into()
    );
    assert_eq!(
        named_after(&code, "super::"),
        ["output", "super"].map(String::from).into()
    );
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph
        .entry("contact".into())
        .or_default()
        .insert("gpu".into());
    graph
        .entry("gpu".into())
        .or_default()
        .insert("solver".into());
    assert_eq!(find_cycle(&graph), None);
    graph
        .entry("solver".into())
        .or_default()
        .insert("contact".into());
    assert_eq!(
        find_cycle(&graph),
        Some(
            ["contact", "gpu", "solver", "contact"]
                .map(String::from)
                .to_vec()
        )
    );
}

/// The core's layers (issue 19): the terms (`energy`) import no other module of the core, the
/// contact stage only the terms, and the solver only those two. That the core knows no scene,
/// mesh or case file Cargo enforces (crates/stickslip-core depends on no crate of ours); its
/// layers inside it this test does. The one exception is `parallel`, the element loops'
/// scheduling, which itself imports nothing of the crate.
#[test]
fn the_cores_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/stickslip-core/src");
    let graph = module_graph(&src);
    let allowed = |module: &str, may: &[&str]| {
        let extra: Vec<&String> = graph[module]
            .iter()
            .filter(|m| !may.contains(&m.as_str()))
            .collect();
        assert!(extra.is_empty(), "{module} imports {extra:?}: {graph:?}");
    };
    allowed("parallel", &[]);
    allowed("energy", &["parallel"]);
    allowed("contact", &["energy", "parallel"]);
    allowed("solver", &["energy", "contact", "parallel"]);
    assert!(
        graph["solver"].contains("contact") && graph["contact"].contains("energy"),
        "the graph must see the edges that certainly exist: {graph:?}"
    );
}
