//! `stickslip run CASE --vtk`: a scene's run (2D or 3D) or the slope's as ParaView reads it
//! (docs/looking_at_a_run.md). Into the output directory's folder [`VTK_DIR`] go one XML
//! UnstructuredGrid (`frame_NNNNN.vtu`, NNNNN the step) per written frame, every
//! `--vtk-stride`-th step with the first and the last always, holding every body's mesh (2D
//! points at z = 0; triangles in 2D, tetrahedra in 3D, an affine body's placed tetrahedra), a
//! [`OBSTACLES_FILE`] of the obstacles (they do not move), and the collection [`COLLECTION`]
//! indexing both by simulated time. The `.vtu` files are written by `vtkio`; the collection,
//! which `vtkio` does not write, is a few lines of fixed XML here.
//!
//! Point data (per mesh node): `displacement` (x − X from the mesh at t = 0, m), `velocity`
//! (m/s), `mass` (lumped, kg), `contact_force` (the barrier's normal forces of the contact pairs
//! within d̂ in this state, as a scene's `contacts.csv` has them, each spread over its stencil's
//! nodes by their weights βⱼ, N; read from the simulation when a frame is written, so nothing
//! is kept between frames), `friction_force` (the lagged friction forces of the step that ended
//! in this state, spread the same way, N) and `contact_state` (0 free, 1 stick, 2 slide,
//! 3 transition: the regime of the pair pressing hardest on the node, by `contacts.csv`'s rule).
//! An affine body's contacts act on vertices embedded in its four control nodes, not on its
//! mesh nodes: its nodes carry NaN forces and state −1. Cell data (per element): `J` (det F, the
//! element's signed area or volume over its value at t = 0) and `body` (the body's number).

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataSet, UnstructuredGridPiece, Version,
    VertexNumbers, Vtk,
};

use crate::app::output::{OutputError, StagedDir, io};
use crate::console::BadOption;
use crate::contact::{ContactPoint, PairDistance};
use crate::energy::{Vec2, Vec3, Vector};
use crate::run::multibody::{ContactRow, ContactState, RunScene, Runner, push_contact_rows};
use crate::scene::body::{Body, BodyHandle};
use crate::solver::Simulation;

/// The folder of the VTK output inside the output directory.
pub const VTK_DIR: &str = "vtk";

/// The collection (`.pvd`) in [`VTK_DIR`] that indexes the frames by time.
pub const COLLECTION: &str = "run.pvd";

/// The obstacles' file in [`VTK_DIR`] (written when the scene has obstacles).
pub const OBSTACLES_FILE: &str = "obstacles.vtu";

/// How far a half-space's drawn patch (a segment in 2D, a quad in 3D) reaches past the bodies'
/// extent over the written frames, as a fraction of that extent's diagonal (dimensionless):
/// enough to see the bodies on it.
pub const HALF_SPACE_MARGIN: f64 = 0.25;

/// `contact_state` of a node no contact pair within d̂ touches.
pub const STATE_FREE: i32 = 0;
/// `contact_state` of a node whose pair sticks ([`ContactState::Stick`]).
pub const STATE_STICK: i32 = 1;
/// `contact_state` of a node whose pair slides ([`ContactState::Slide`]).
pub const STATE_SLIDE: i32 = 2;
/// `contact_state` of a node whose pair is in the blend between ([`ContactState::Transition`]).
pub const STATE_TRANSITION: i32 = 3;
/// `contact_state` of an affine body's nodes: its contacts are not on its mesh nodes.
pub const STATE_UNRESOLVED: i32 = -1;

/// What `--vtk` reads of a scene of dimension `D` beyond its run: its elements, masses and
/// obstacles.
pub trait VtkScene<const D: usize>: RunScene<D> {
    /// Body `k`'s elements, D + 1 of its mesh's nodes each, one after another: triangles in 2D,
    /// tetrahedra in 3D, in the numbering of [`crate::scene::body::Body::place`].
    fn element_nodes(&self, k: usize) -> Vec<usize>;
    /// Body `k`'s mesh nodes' lumped masses, kg.
    fn node_masses(&self, k: usize) -> &[f64];
    /// The obstacles as VTK cells, a half-space's over the box `lo`..`hi` (m) the bodies took
    /// up.
    fn obstacle_cells(&self, lo: &Vector<D>, hi: &Vector<D>) -> ObstacleCells;
}

/// A 2D mesh whose nodes are the state vector's (the slope's square) as a body of the frames.
pub struct MeshBody<'a>(pub &'a crate::scene::Mesh);

impl Body<2> for MeshBody<'_> {
    fn name(&self) -> &str {
        "square"
    }

    fn place<'a>(&self, x: &'a [Vec2]) -> Cow<'a, [Vec2]> {
        Cow::Borrowed(x)
    }

    fn elements(&self) -> usize {
        self.0.triangles.len()
    }

    fn inverted_elements(&self, x: &[Vec2]) -> usize {
        self.0.inverted_triangles(x)
    }
}

/// The steps `--vtk-stride` (`stride`, steps) writes of a run of `steps` steps: every
/// `stride`-th from 0, and the last.
pub fn written(step: usize, stride: usize, steps: usize) -> bool {
    step.is_multiple_of(stride) || step == steps
}

/// `--vtk-stride` (steps) checked against the run's `steps`: at least 1 and at most `steps`.
pub fn check_stride(stride: usize, steps: usize) -> Result<(), BadOption> {
    if stride == 0 || stride > steps {
        return Err(BadOption::new(
            "--vtk-stride",
            &format!("must be between 1 and the run's {steps} steps"),
            stride,
        ));
    }
    Ok(())
}

/// The obstacles of a scene as VTK cells: points (x, y, z, m), cells and each cell's obstacle
/// (its number in the friction table).
#[derive(Default)]
pub struct ObstacleCells {
    points: Vec<f64>,
    connectivity: Vec<u64>,
    offsets: Vec<u64>,
    types: Vec<CellType>,
    member: Vec<i32>,
}

impl ObstacleCells {
    /// Adds a cell of type `kind` through `points` (m) for obstacle `member`.
    pub fn push(&mut self, kind: CellType, points: &[Vec3], member: usize) {
        let first = (self.points.len() / 3) as u64;
        for p in points {
            self.points.extend(p.iter().copied());
        }
        self.connectivity
            .extend((0..points.len() as u64).map(|i| first + i));
        self.offsets.push(self.connectivity.len() as u64);
        self.types.push(kind);
        self.member.push(i32::try_from(member).unwrap_or(i32::MAX));
    }

    /// Adds half-space `normal`·(x − `point`) ≥ 0 of obstacle `member` as the part of its
    /// boundary over the box `lo`..`hi` (m), widened by [`HALF_SPACE_MARGIN`]: a segment in 2D, a
    /// quad in 3D.
    pub fn push_half_space<const D: usize>(
        &mut self,
        normal: &Vector<D>,
        point: &Vector<D>,
        lo: &Vector<D>,
        hi: &Vector<D>,
        member: usize,
    ) {
        let n = xyz(normal);
        let o = xyz(point);
        let (lo, hi) = (xyz(lo), xyz(hi));
        let tangents: Vec<Vec3> = if D == 2 {
            vec![Vec3::new(-n.y, n.x, 0.0)]
        } else {
            let across = if n.x.abs() < 0.9 {
                Vec3::x()
            } else {
                Vec3::y()
            };
            let t1 = n.cross(&across).normalize();
            vec![t1, n.cross(&t1)]
        };
        let margin = HALF_SPACE_MARGIN * (lo - hi).norm();
        let corners = (0..1 << D).map(|c| {
            let mut p = Vec3::zeros();
            for a in 0..D {
                p[a] = if c >> a & 1 == 1 { hi[a] } else { lo[a] };
            }
            p
        });
        let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); tangents.len()];
        for c in corners {
            for (t, r) in tangents.iter().zip(range.iter_mut()) {
                let s = (c - o).dot(t);
                *r = (r.0.min(s - margin), r.1.max(s + margin));
            }
        }
        let at = |coords: &[f64]| {
            let mut p = o;
            for (t, s) in tangents.iter().zip(coords) {
                p += t * *s;
            }
            p
        };
        if D == 2 {
            let (a, b) = range[0];
            self.push(CellType::Line, &[at(&[a]), at(&[b])], member);
        } else {
            let ((a0, a1), (b0, b1)) = (range[0], range[1]);
            let quad = [at(&[a0, b0]), at(&[a1, b0]), at(&[a1, b1]), at(&[a0, b1])];
            self.push(CellType::Quad, &quad, member);
        }
    }

    fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    fn into_vtk(self) -> Vtk {
        let cell = vec![Attribute::scalars("obstacle", 1).with_data(self.member)];
        grid(
            self.points,
            self.connectivity,
            self.offsets,
            self.types,
            Attributes {
                point: Vec::new(),
                cell,
            },
        )
    }
}

/// A vector of `D` components as (x, y, z), z = 0 in 2D.
fn xyz<const D: usize>(v: &Vector<D>) -> Vec3 {
    let mut p = Vec3::zeros();
    for a in 0..D {
        p[a] = v[a];
    }
    p
}

/// An UnstructuredGrid of `points` (x, y, z, m) and cells.
fn grid(
    points: Vec<f64>,
    connectivity: Vec<u64>,
    offsets: Vec<u64>,
    types: Vec<CellType>,
    data: Attributes,
) -> Vtk {
    Vtk {
        version: Version::new((1, 0)),
        title: String::new(),
        byte_order: ByteOrder::LittleEndian,
        file_path: None,
        data: DataSet::inline(UnstructuredGridPiece {
            points: points.into(),
            cells: Cells {
                cell_verts: VertexNumbers::XML {
                    connectivity,
                    offsets,
                },
                types,
            },
            data,
        }),
    }
}

/// Writes `vtk` to `path` (a `.vtu`).
fn export(path: &Path, vtk: Vtk) -> Result<(), OutputError> {
    vtk.export(path).map_err(|e| OutputError {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// The signed area (2D, of a triangle) or volume (3D, of a tetrahedron) of `p`, m² or m³, up to
/// the constant factor (1/2, 1/6) that J's ratio cancels.
fn signed_measure<const D: usize>(p: &[Vector<D>]) -> f64 {
    let e = |i: usize| xyz(&(p[i] - p[0]));
    if D == 2 {
        e(1).cross(&e(2)).z
    } else {
        e(1).dot(&e(2).cross(&e(3)))
    }
}

/// A run's VTK frames (a scene's or the slope's) being written through its [`StagedDir`].
pub struct VtkFrames<const D: usize> {
    stride: usize,
    steps: usize,
    /// Every body's mesh nodes at t = 0 (X), m, one after another.
    rest: Vec<Vector<D>>,
    /// Where each body's nodes start in a frame's points.
    first_point: Vec<usize>,
    /// Whether body k's mesh nodes are its nodes of the state vector (not an affine body's).
    own_nodes: Vec<bool>,
    /// A frame's point of every node of the state vector that is a body's mesh node.
    point_of: Vec<Option<usize>>,
    /// Every node's lumped mass, kg.
    mass: Vec<f64>,
    connectivity: Vec<u64>,
    offsets: Vec<u64>,
    /// Body of every element.
    element_body: Vec<i32>,
    /// Signed measure of every element at t = 0 ([`signed_measure`]).
    rest_measure: Vec<f64>,
    /// The bodies' extent over the frames written, m.
    lo: Vector<D>,
    hi: Vector<D>,
    /// The frames written: time, s, and file name.
    frames: Vec<(f64, String)>,
    /// The barrier's reach d̂, m: the pairs within it are a state's contact rows.
    dhat: f64,
    /// Smoothed friction's ε_v, m/s: the stick/slide rule.
    eps_v: f64,
    /// A state's pairs, contact rows and friction contacts (buffers kept between frames).
    pairs: Vec<PairDistance<D>>,
    rows: Vec<ContactRow<D>>,
    friction: Vec<ContactPoint<D>>,
}

/// A body of a frame: where its state is, its mesh's elements (D + 1 of its mesh's nodes each,
/// one after another) and its mesh nodes' lumped masses, kg.
pub struct FrameBody<'a, const D: usize> {
    /// The body and its nodes in the state vector.
    pub handle: BodyHandle<'a, D>,
    /// Its elements: triangles in 2D, tetrahedra in 3D, in the numbering of its placed mesh.
    pub elements: Vec<usize>,
    /// Its mesh nodes' masses, kg.
    pub masses: &'a [f64],
}

impl<const D: usize> VtkFrames<D> {
    /// The frames of a run of `steps` steps of `sim` (at t = 0) with `bodies`, every
    /// `stride`-th step and the last, its contact rows the pairs within `dhat` (m) and its
    /// states by `eps_v` (m/s), into `staged`'s [`VTK_DIR`] (created here).
    pub fn new(
        sim: &Simulation<D>,
        bodies: &[FrameBody<D>],
        stride: usize,
        steps: usize,
        (dhat, eps_v): (f64, f64),
        staged: &StagedDir,
    ) -> Result<Self, OutputError> {
        staged.create_dir(VTK_DIR)?;
        let mut frames = VtkFrames {
            stride,
            steps,
            rest: Vec::new(),
            first_point: Vec::new(),
            own_nodes: Vec::new(),
            point_of: vec![None; sim.x.len()],
            mass: Vec::new(),
            connectivity: Vec::new(),
            offsets: Vec::new(),
            element_body: Vec::new(),
            rest_measure: Vec::new(),
            lo: Vector::<D>::repeat(f64::INFINITY),
            hi: Vector::<D>::repeat(f64::NEG_INFINITY),
            frames: Vec::new(),
            dhat,
            eps_v,
            pairs: Vec::new(),
            rows: Vec::new(),
            friction: Vec::new(),
        };
        for (k, body) in bodies.iter().enumerate() {
            let placed = body.handle.positions(sim);
            let own = matches!(placed, Cow::Borrowed(_));
            let first = frames.rest.len();
            if own {
                for (i, node) in body.handle.nodes.clone().enumerate() {
                    frames.point_of[node] = Some(first + i);
                }
            }
            for element in body.elements.chunks_exact(D + 1) {
                let p: Vec<Vector<D>> = element.iter().map(|&i| placed[i]).collect();
                frames.rest_measure.push(signed_measure(&p));
                frames
                    .connectivity
                    .extend(element.iter().map(|&i| (first + i) as u64));
                frames.offsets.push(frames.connectivity.len() as u64);
                frames
                    .element_body
                    .push(i32::try_from(k).unwrap_or(i32::MAX));
            }
            frames.mass.extend_from_slice(body.masses);
            frames.rest.extend_from_slice(&placed);
            frames.first_point.push(first);
            frames.own_nodes.push(own);
        }
        Ok(frames)
    }

    /// The frames of a scene's run `runner` (at t = 0).
    pub fn of_scene<S: VtkScene<D>>(
        runner: &Runner<S, D>,
        stride: usize,
        staged: &StagedDir,
    ) -> Result<Self, OutputError> {
        let scene = &runner.scene;
        let bodies: Vec<FrameBody<D>> = (0..scene.body_count())
            .map(|k| FrameBody {
                handle: runner.body(k),
                elements: scene.element_nodes(k),
                masses: scene.node_masses(k),
            })
            .collect();
        let settings = scene.settings();
        let reach = (settings.barrier.dhat, settings.eps_v);
        Self::new(
            &runner.sim,
            &bodies,
            stride,
            runner.total_steps(),
            reach,
            staged,
        )
    }

    /// Whether step `step`'s frame is one to write.
    pub fn wants(&self, step: usize) -> bool {
        written(step, self.stride, self.steps)
    }

    /// Writes the frame of a scene's run `runner` now, if its step is one to write.
    pub fn scene_step<S: VtkScene<D>>(
        &mut self,
        runner: &Runner<S, D>,
        staged: &StagedDir,
    ) -> Result<(), OutputError> {
        if !self.wants(runner.sim.step) {
            return Ok(());
        }
        let bodies: Vec<BodyHandle<D>> = (0..runner.scene.body_count())
            .map(|k| runner.body(k))
            .collect();
        self.write(&runner.sim, &bodies, staged)
    }

    /// Writes the frame of `sim`'s current state with `bodies` (the order of
    /// [`VtkFrames::new`]'s): the contact rows are the pairs within d̂ now, as a scene's
    /// `contacts.csv` has them ([`push_contact_rows`]), and the friction contacts those of the
    /// step that ended here ([`Simulation::contacts`]).
    pub fn write(
        &mut self,
        sim: &Simulation<D>,
        bodies: &[BodyHandle<D>],
        staged: &StagedDir,
    ) -> Result<(), OutputError> {
        let step = sim.step;
        self.pairs.clear();
        if let Some(c) = sim.contact() {
            c.distances(&sim.x, &mut self.pairs);
        }
        self.rows.clear();
        sim.contacts(&mut self.friction);
        // The frame spreads the friction set's forces itself (a pair that left d̂ during the
        // step has friction and no row), so the rows need not look theirs up.
        push_contact_rows(
            sim.time(),
            self.dhat,
            &self.pairs,
            &sim.v,
            &[],
            &mut self.rows,
        );
        let name = format!("frame_{step:05}.vtu");
        let vtk = self.frame(sim, bodies);
        staged.write(&format!("{VTK_DIR}/{name}"), |path| export(path, vtk))?;
        self.frames.push((sim.time(), name));
        Ok(())
    }

    fn frame(&mut self, sim: &Simulation<D>, bodies: &[BodyHandle<D>]) -> Vtk {
        let n = self.rest.len();
        let mut points = Vec::with_capacity(3 * n);
        let mut displacement = Vec::with_capacity(3 * n);
        let mut velocity = Vec::with_capacity(3 * n);
        let mut now: Vec<Vector<D>> = Vec::with_capacity(n);
        for (k, body) in bodies.iter().enumerate() {
            let x = body.positions(sim);
            let v = body.body.place(body.of(&sim.v));
            for (i, (p, u)) in x.iter().zip(v.iter()).enumerate() {
                let d = p - self.rest[self.first_point[k] + i];
                points.extend(xyz(p).iter().copied());
                displacement.extend(xyz(&d).iter().copied());
                velocity.extend(xyz(u).iter().copied());
                self.lo = self.lo.inf(p);
                self.hi = self.hi.sup(p);
            }
            now.extend_from_slice(&x);
        }
        // Forces and states: NaN and unresolved on an affine body's nodes, zero and free on
        // the others until a pair touches them.
        let mut contact = vec![[0.0; 3]; n];
        let mut friction = vec![[0.0; 3]; n];
        let mut state = vec![STATE_FREE; n];
        let mut pressing = vec![f64::NEG_INFINITY; n];
        for (k, &own) in self.own_nodes.iter().enumerate() {
            if !own {
                let end = self.first_point.get(k + 1).copied().unwrap_or(n);
                for i in self.first_point[k]..end {
                    contact[i] = [f64::NAN; 3];
                    friction[i] = [f64::NAN; 3];
                    state[i] = STATE_UNRESOLVED;
                }
            }
        }
        let eps_v = self.eps_v;
        for r in &self.rows {
            let f = xyz(&(r.normal * r.normal_force));
            let regime = match ContactState::of_slip(r.slip.norm(), eps_v) {
                ContactState::Stick => STATE_STICK,
                ContactState::Slide => STATE_SLIDE,
                ContactState::Transition => STATE_TRANSITION,
            };
            for j in 0..r.len {
                let Some(i) = self.point_of.get(r.nodes[j]).copied().flatten() else {
                    continue;
                };
                for a in 0..3 {
                    contact[i][a] += r.weights[j] * f[a];
                }
                if r.weights[j] != 0.0 && r.normal_force > pressing[i] {
                    pressing[i] = r.normal_force;
                    state[i] = regime;
                }
            }
        }
        for c in &self.friction {
            let f = xyz(&c.friction_force);
            for j in 0..c.len {
                let Some(i) = self.point_of.get(c.nodes[j]).copied().flatten() else {
                    continue;
                };
                for a in 0..3 {
                    friction[i][a] += c.weights[j] * f[a];
                }
            }
        }
        let per = D + 1;
        let jacobian: Vec<f64> = self
            .connectivity
            .chunks_exact(per)
            .zip(&self.rest_measure)
            .map(|(e, rest)| {
                let p: Vec<Vector<D>> = e.iter().map(|&i| now[i as usize]).collect();
                signed_measure(&p) / rest
            })
            .collect();
        let flat = |v: Vec<[f64; 3]>| -> Vec<f64> { v.into_iter().flatten().collect() };
        let point = vec![
            Attribute::vectors("displacement").with_data(displacement),
            Attribute::vectors("velocity").with_data(velocity),
            Attribute::scalars("mass", 1).with_data(self.mass.clone()),
            Attribute::vectors("contact_force").with_data(flat(contact)),
            Attribute::vectors("friction_force").with_data(flat(friction)),
            Attribute::scalars("contact_state", 1).with_data(state),
        ];
        let cell = vec![
            Attribute::scalars("J", 1).with_data(jacobian),
            Attribute::scalars("body", 1).with_data(self.element_body.clone()),
        ];
        let kind = if D == 2 {
            CellType::Triangle
        } else {
            CellType::Tetra
        };
        grid(
            points,
            self.connectivity.clone(),
            self.offsets.clone(),
            vec![kind; self.offsets.len()],
            Attributes { point, cell },
        )
    }

    /// How many frames were written.
    pub fn written(&self) -> usize {
        self.frames.len()
    }

    /// Writes the obstacles' file and the collection, after the last frame: `obstacles` gives
    /// the obstacles' cells, a half-space's over the box (m) the bodies took up in the frames
    /// written.
    pub fn finish(
        &self,
        obstacles: impl FnOnce(&Vector<D>, &Vector<D>) -> ObstacleCells,
        staged: &StagedDir,
    ) -> Result<(), OutputError> {
        let obstacles = obstacles(&self.lo, &self.hi);
        let with_obstacles = !obstacles.is_empty();
        if with_obstacles {
            let vtk = obstacles.into_vtk();
            staged.write(&format!("{VTK_DIR}/{OBSTACLES_FILE}"), |path| {
                export(path, vtk)
            })?;
        }
        staged.write(&format!("{VTK_DIR}/{COLLECTION}"), |path| {
            let mut w = std::io::BufWriter::new(io(path, std::fs::File::create(path))?);
            let mut text = String::from(
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
            );
            for (t, file) in &self.frames {
                text.push_str(&format!(
                    "    <DataSet timestep=\"{t}\" part=\"0\" file=\"{file}\"/>\n"
                ));
                if with_obstacles {
                    text.push_str(&format!(
                        "    <DataSet timestep=\"{t}\" part=\"1\" file=\"{OBSTACLES_FILE}\"/>\n"
                    ));
                }
            }
            text.push_str("  </Collection>\n</VTKFile>\n");
            io(path, w.write_all(text.as_bytes()))?;
            io(path, w.flush())
        })
    }
}
