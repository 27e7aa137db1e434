//! Issue 42, item 1 (ParaView output): `run CASE --vtk` on a 2D and a 3D scene and the slope
//! writes `vtk/run.pvd` and one `.vtu` per written step, read back here by `vtkio`'s XML reader
//! (not the path that writes them) and checked against what the run writes in its other files:
//! the frames' times are `trajectory.csv`'s, the points are the bodies' nodes of
//! `summary.json`, a body's mass-weighted centroid and mean velocity from the frame are
//! `trajectory.csv`'s, its net contact force is the sum of its pairs in `contacts.csv` (the
//! forces between two bodies cancel, Newton's third law), and a node in contact appears in a
//! pair of that step; the slope's contact forces push across its segment in `obstacles.vtu`.
//! Bad strides are refused with exit 2 before anything is written, and the
//! `vtk/` folder is replaced and guarded like every other output file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vtkio::model::{Attribute, DataSet, IOBuffer, Piece, UnstructuredGridPiece};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stickslip"));
    c.env_remove("STICKSLIP_GPU_BACKENDS");
    c
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `run CASE --gpu off --duration DURATION --out OUT` and `extra`.
fn run(case_name: &str, duration: &str, out: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["run", case(case_name).to_str().unwrap()])
        .args(["--gpu", "off", "--duration", duration, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// A CSV file's header and rows of fields.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// The collection's data sets of part 0 (the bodies): (time, file), in order. A few lines of
/// scanning for the `timestep`, `part` and `file` attributes of each `<DataSet .../>`.
fn collection(pvd: &Path) -> Vec<(f64, String)> {
    let text = std::fs::read_to_string(pvd).unwrap();
    assert!(text.contains("<VTKFile type=\"Collection\""), "{text}");
    let attr = |element: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let start = element.find(&key).unwrap() + key.len();
        element[start..].split('"').next().unwrap().to_string()
    };
    text.split("<DataSet ")
        .skip(1)
        .map(|e| e.split("/>").next().unwrap())
        .filter(|e| attr(e, "part") == "0")
        .map(|e| (attr(e, "timestep").parse().unwrap(), attr(e, "file")))
        .collect()
}

/// A `.vtu` as vtkio's XML reader reads it: its one piece.
fn read_vtu(path: &Path) -> UnstructuredGridPiece {
    let vtk = vtkio::Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let DataSet::UnstructuredGrid { mut pieces, .. } = vtk.data else {
        panic!("{}: not an UnstructuredGrid", path.display())
    };
    assert_eq!(pieces.len(), 1);
    match pieces.remove(0) {
        Piece::Inline(p) => *p,
        _ => panic!("{}: the piece is not inline", path.display()),
    }
}

fn array(attributes: &[Attribute], name: &str) -> IOBuffer {
    attributes
        .iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == name => Some(d.data.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no array {name}"))
}

fn floats(b: IOBuffer) -> Vec<f64> {
    b.cast_into::<f64>().unwrap()
}

/// Which body each point is of, from the cells' `body` and their nodes.
fn point_bodies(piece: &UnstructuredGridPiece) -> Vec<usize> {
    let (connectivity, offsets) = piece.cells.cell_verts.clone().into_xml();
    let body = array(&piece.data.cell, "body").cast_into::<i64>().unwrap();
    let mut of = vec![usize::MAX; piece.num_points()];
    let mut start = 0;
    for (c, &end) in offsets.iter().enumerate() {
        for &p in &connectivity[start..end as usize] {
            of[p as usize] = body[c] as usize;
        }
        start = end as usize;
    }
    assert!(
        of.iter().all(|&b| b != usize::MAX),
        "every point is in a cell"
    );
    of
}

/// The checks of a run of `case_name` (dimension `dim`) with
/// `--vtk --contacts` over `duration` s.
fn check_run(case_name: &str, dim: usize, duration: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(case_name, duration, &out, &["--vtk", "--contacts"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (header, rows) = csv(&out.join("trajectory.csv"));
    let frames = collection(&out.join("vtk/run.pvd"));
    // One frame per trajectory row (stride 1), at the row's time.
    assert_eq!(frames.len(), rows.len());
    for ((t, file), row) in frames.iter().zip(&rows) {
        assert_eq!(*t, row[0].parse::<f64>().unwrap(), "{file}");
        assert!(out.join("vtk").join(file).is_file(), "{file}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let bodies = summary["bodies"].as_array().unwrap();
    let (_, contacts) = csv(&out.join("contacts.csv"));
    let axes = ["x", "y", "z"];
    let mut touched = 0;
    // The first frame, one in the middle and the last.
    for k in [0, frames.len() / 2, frames.len() - 1] {
        let (t, file) = &frames[k];
        let piece = read_vtu(&out.join("vtk").join(file));
        let nodes: u64 = bodies.iter().map(|b| b["nodes"].as_u64().unwrap()).sum();
        assert_eq!(
            piece.num_points() as u64,
            nodes,
            "{file}: the bodies' nodes"
        );
        let points = floats(piece.points.clone());
        let mass = floats(array(&piece.data.point, "mass"));
        let velocity = floats(array(&piece.data.point, "velocity"));
        let force = floats(array(&piece.data.point, "contact_force"));
        let state = array(&piece.data.point, "contact_state")
            .cast_into::<i64>()
            .unwrap();
        let of = point_bodies(&piece);
        let step_rows: Vec<&Vec<String>> = contacts
            .iter()
            .filter(|r| r[0].parse::<f64>().unwrap() == *t)
            .collect();
        for (b, body) in bodies.iter().enumerate() {
            let name = body["name"].as_str().unwrap();
            let mine: Vec<usize> = (0..of.len()).filter(|&p| of[p] == b).collect();
            let m: f64 = mine.iter().map(|&p| mass[p]).sum();
            let mass_kg = body["mass_kg"].as_f64().unwrap();
            assert!(
                (m - mass_kg).abs() <= 1e-12 * mass_kg,
                "{name}: mass {m} vs {mass_kg}"
            );
            // trajectory.csv's centroid and velocity are mass-weighted means over the nodes
            // (BodyHandle::centre_velocity), printed to the last bit: equal up to the order of
            // the sums, a few ulps of the body's coordinates.
            let extent = mine
                .iter()
                .map(|&p| (0..3).map(|a| points[3 * p + a].abs()).fold(0.0, f64::max))
                .fold(0.0, f64::max);
            for (a, axis) in axes.iter().enumerate().take(dim) {
                let c: f64 = mine
                    .iter()
                    .map(|&p| mass[p] * points[3 * p + a])
                    .sum::<f64>()
                    / m;
                let want: f64 = rows[k][column(&header, &format!("{name}.{axis}_m"))]
                    .parse()
                    .unwrap();
                assert!(
                    (c - want).abs() <= 1e-12 * (extent + 1.0),
                    "{file}: {name}.{axis}_m {c} vs {want}"
                );
                let v: f64 = mine
                    .iter()
                    .map(|&p| mass[p] * velocity[3 * p + a])
                    .sum::<f64>()
                    / m;
                let want: f64 = rows[k][column(&header, &format!("{name}.v{axis}_m_per_s"))]
                    .parse()
                    .unwrap();
                assert!(
                    (v - want).abs() <= 1e-12 * (want.abs() + 1.0),
                    "{file}: {name}.v{axis} {v} vs {want}"
                );
            }
            if dim == 2 {
                assert!(mine.iter().all(|&p| points[3 * p + 2] == 0.0), "2D: z = 0");
            }
            // The net contact force on the body: every pair of contacts.csv at this step
            // pushes its first member along its normal and its second against it (the forces
            // between two bodies cancel in the sum over both).
            let mut want = [0.0; 3];
            let mut scale = 0.0;
            for r in &step_rows {
                let f: f64 = r[6].parse().unwrap();
                let sign = f64::from(i8::from(r[2] == name) - i8::from(r[3] == name));
                for (a, w) in want.iter_mut().enumerate().take(dim) {
                    *w += sign * f * r[7 + a].parse::<f64>().unwrap();
                }
                scale += f.abs();
            }
            for (a, w) in want.iter().enumerate() {
                let got: f64 = mine.iter().map(|&p| force[3 * p + a]).sum();
                assert!(
                    (got - w).abs() <= 1e-9 * (scale + 1.0),
                    "{file}: {name}'s contact force {a}: {got} vs {w}"
                );
            }
        }
        // A node in contact is in a pair of this step (no body is affine here: the points are
        // numbered as the state vector, as contacts.csv's nodes), and one no pair lists is
        // free.
        let listed: std::collections::BTreeSet<usize> = step_rows
            .iter()
            .flat_map(|r| r[4].split(' ').map(|n| n.parse::<usize>().unwrap()))
            .collect();
        for (p, &s) in state.iter().enumerate() {
            let names: Vec<&str> = step_rows
                .iter()
                .filter(|r| r[4].split(' ').any(|n| n == p.to_string()))
                .map(|r| r[dim + 8].as_str())
                .collect();
            match s {
                0 => {}
                1 => assert!(
                    names.contains(&"stick"),
                    "{file}: node {p} sticks: {names:?}"
                ),
                2 => assert!(
                    names.contains(&"slide"),
                    "{file}: node {p} slides: {names:?}"
                ),
                3 => assert!(names.contains(&"transition"), "{file}: node {p}: {names:?}"),
                s => panic!("{file}: node {p} has state {s}"),
            }
            if s != 0 {
                assert!(listed.contains(&p));
                touched += 1;
            }
        }
        let j = floats(array(&piece.data.cell, "J"));
        assert!(j.iter().all(|j| j.is_finite() && *j > 0.0), "{file}: J > 0");
    }
    assert!(touched > 0, "{case_name}: some node is in contact");
}

#[test]
fn a_2d_and_a_3d_run_read_back_equal_their_trajectory_and_contacts() {
    check_run("pulled_block.toml", 2, "0.05");
    check_run("box_on_box3d.toml", 3, "0.05");
}

#[test]
fn the_stride_writes_every_kth_step_and_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(
        "pulled_block.toml",
        "0.05",
        &out,
        &["--vtk", "--vtk-stride", "7"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (_, rows) = csv(&out.join("trajectory.csv"));
    let steps = rows.len() - 1;
    let want: Vec<usize> = (0..=steps).filter(|s| s % 7 == 0 || *s == steps).collect();
    let frames = collection(&out.join("vtk/run.pvd"));
    let got: Vec<(f64, String)> = want
        .iter()
        .map(|&s| (rows[s][0].parse().unwrap(), format!("frame_{s:05}.vtu")))
        .collect();
    assert_eq!(frames, got);
    let vtus = std::fs::read_dir(out.join("vtk"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("frame_")
        })
        .count();
    assert_eq!(vtus, want.len());
}

#[test]
fn the_slope_read_back_equals_its_trajectory_and_presses_along_its_normal() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    // 2 s at h = 10 ms: the square has landed.
    let o = run(
        "slope_mu0.11.toml",
        "2",
        &out,
        &["--vtk", "--vtk-stride", "40"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (header, rows) = csv(&out.join("trajectory.csv"));
    let frames = collection(&out.join("vtk/run.pvd"));
    let steps: Vec<usize> = (0..rows.len()).filter(|s| s % 40 == 0).collect();
    assert_eq!(frames.len(), steps.len());
    // The slope as the obstacles' one segment: its direction, and the side the square is on.
    let slope = read_vtu(&out.join("vtk/obstacles.vtu"));
    let ends = floats(slope.points.clone());
    let along = [ends[3] - ends[0], ends[4] - ends[1]];
    let mut pressed = 0;
    for ((t, file), &s) in frames.iter().zip(&steps) {
        assert_eq!(*t, rows[s][0].parse::<f64>().unwrap());
        let piece = read_vtu(&out.join("vtk").join(file));
        let x = floats(piece.points.clone());
        let v = floats(array(&piece.data.point, "velocity"));
        let f = floats(array(&piece.data.point, "contact_force"));
        let n = piece.num_points();
        // The slope's trajectory.csv has the nodes' plain mean (runner.rs, `centroid`).
        for (a, name) in ["centroid_x_m", "centroid_y_m"].iter().enumerate() {
            let c = (0..n).map(|p| x[3 * p + a]).sum::<f64>() / n as f64;
            let want: f64 = rows[s][column(&header, name)].parse().unwrap();
            assert!(
                (c - want).abs() <= 1e-12 * (want.abs() + 1.0),
                "{file}: {name}"
            );
        }
        for (a, name) in ["centroid_vx_m_per_s", "centroid_vy_m_per_s"]
            .iter()
            .enumerate()
        {
            let c = (0..n).map(|p| v[3 * p + a]).sum::<f64>() / n as f64;
            let want: f64 = rows[s][column(&header, name)].parse().unwrap();
            assert!(
                (c - want).abs() <= 1e-12 * (want.abs() + 1.0),
                "{file}: {name}"
            );
        }
        // Every node's contact force is the slope's push: across the segment, towards the
        // square (whose nodes are all on one side of it).
        for p in 0..n {
            let (fx, fy) = (f[3 * p], f[3 * p + 1]);
            let across = fx * along[0] + fy * along[1];
            let size = (fx * fx + fy * fy).sqrt();
            assert!(
                across.abs() <= 1e-9 * size,
                "{file}: node {p} along the slope"
            );
            let side = (x[3 * p] - ends[0]) * along[1] - (x[3 * p + 1] - ends[1]) * along[0];
            let push = fx * along[1] - fy * along[0];
            assert!(push * side >= 0.0, "{file}: node {p} pushed off the slope");
            if size > 0.0 {
                pressed += 1;
            }
        }
    }
    assert!(pressed > 0, "the square lands");
}

/// Exit code 2, one line on stderr saying every one of `needles`, and nothing at `out`.
fn assert_refused(o: &Output, out: &Path, needles: &[&str], what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: exit code; {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: says `{n}`: {err}");
    }
    assert!(
        !out.exists(),
        "{what}: nothing written at {}",
        out.display()
    );
    let parent = out.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(parent).unwrap().collect();
    assert!(left.is_empty(), "{what}: no staging left: {left:?}");
}

#[test]
fn bad_strides_and_kinds_are_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(
        "pulled_block.toml",
        "0.05",
        &out,
        &["--vtk", "--vtk-stride", "0"],
    );
    assert_refused(&o, &out, &["--vtk-stride", "at least 1"], "stride 0");
    // 0.05 s at h = 1 ms is 50 steps.
    let o = run(
        "pulled_block.toml",
        "0.05",
        &out,
        &["--vtk", "--vtk-stride", "51"],
    );
    assert_refused(
        &o,
        &out,
        &["--vtk-stride", "50 steps", "51"],
        "stride past the run",
    );
    let o = run(
        "box_on_box3d.toml",
        "0.05",
        &out,
        &["--vtk", "--vtk-stride", "51"],
    );
    assert_refused(
        &o,
        &out,
        &["--vtk-stride", "50 steps"],
        "3D: stride past the run",
    );
    let o = run("pulled_block.toml", "0.05", &out, &["--vtk-stride", "5"]);
    assert_refused(
        &o,
        &out,
        &["--vtk-stride", "with --vtk"],
        "stride without --vtk",
    );
    // The slope: 0.05 s at h = 10 ms is 5 steps.
    let o = run(
        "slope_mu0.11.toml",
        "0.05",
        &out,
        &["--vtk", "--vtk-stride", "6"],
    );
    assert_refused(
        &o,
        &out,
        &["--vtk-stride", "5 steps"],
        "the slope: stride past the run",
    );
    let o = run("slope_mu0.11.toml", "0.05", &out, &["--vtk-stride", "1"]);
    assert_refused(
        &o,
        &out,
        &["--vtk-stride", "with --vtk"],
        "the slope: without --vtk",
    );
    let o = run("football.toml", "0.05", &out, &["--vtk"]);
    assert_refused(&o, &out, &["--vtk", "scene cases"], "a rigid ellipsoid");
    let o = run("bounce.toml", "0.05", &out, &["--vtk"]);
    assert_refused(&o, &out, &["--vtk", "scene cases"], "the bounce");
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_vtk_folder_is_replaced_as_the_runs_own_and_guarded_as_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run("pulled_block.toml", "0.01", &out, &["--vtk"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A previous run's output, vtk/ included, is replaced by the next.
    let o = run(
        "pulled_block.toml",
        "0.02",
        &out,
        &["--vtk", "--vtk-stride", "4"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(collection(&out.join("vtk/run.pvd")).len(), 6);
    assert!(
        !out.join("vtk/frame_00001.vtu").exists(),
        "the old frames go"
    );
    // A file of the user's in vtk/ makes the output theirs: refused, nothing changed.
    std::fs::write(out.join("vtk/notes.txt"), b"mine").unwrap();
    let before = snapshot(&out);
    let o = run("pulled_block.toml", "0.01", &out, &["--vtk"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("vtk/notes.txt"), "{err}");
    assert_eq!(snapshot(&out), before);
    // So does a frame changed since it was written.
    std::fs::remove_file(out.join("vtk/notes.txt")).unwrap();
    std::fs::write(out.join("vtk/frame_00004.vtu"), b"edited").unwrap();
    let before = snapshot(&out);
    let o = run("pulled_block.toml", "0.01", &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("vtk/frame_00004.vtu"), "{err}");
    assert_eq!(snapshot(&out), before);
}
