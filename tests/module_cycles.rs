//! No import cycle between the top-level modules of `src/`, nor between the submodules of
//! `src/app/` (issue 9): every `crate::MODULE` path in code (not in comments) is an edge from
//! the module of the file it is in to MODULE (for app's submodules: every `crate::app::SUB`
//! path, and `super::SUB` in a file directly in `src/app/`), and the graph of those edges must
//! have no cycle. The graph is read from the sources here, independently of the compiler, so a
//! cycle is caught however it is written (`use crate::x`, `crate::x::f()` in code,
//! `use crate::{x, y}`).

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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    // The graph must see the modules and edges that certainly exist, or it proves nothing.
    assert!(graph["app"].contains("view"), "{graph:?}");
    assert!(graph["view"].contains("run"), "{graph:?}");
    assert!(graph["gpu"].contains("cross_check"), "{graph:?}");
    assert!(graph["solver"].contains("energy"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle between top-level modules: {}",
            cycle.join(" -> ")
        );
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

/// The core's layers (issue 19): the terms (`energy`) import no other module of the crate, the
/// contact stage only the terms, and the solver only those two: it knows no scene, mesh or case
/// file, so every scene builds its system on the same solver. The one exception is `parallel`,
/// the element loops' scheduling, which itself imports nothing of the crate.
#[test]
fn the_solver_knows_no_scene() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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
        graph["scene"].contains("solver"),
        "the scene builds a system: {graph:?}"
    );
}
