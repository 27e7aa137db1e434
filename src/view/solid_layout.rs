//! Where a 3D scene case's pieces go on the screen (SPEC.md §7, D = 3): the perspective camera
//! that frames its bodies, the projection of a world point into the scene view, the patch of a
//! half-space drawn around the bodies and the shade of a face. Pure functions of the state, with
//! no window behind them, so that the tests can say where a frame must show what; the painter
//! hands the same camera to macroquad's `Camera3D`.

use macroquad::math::{Mat4, Vec3 as GlVec3, Vec4};

use crate::contact::HalfSpace;
use crate::energy::Vec3;
use crate::graphics::Rgb;

use super::layout::Rect;

/// The camera's vertical field of view, rad.
pub const FOVY_RAD: f32 = 0.7;
/// The camera's near and far planes as multiples of its distance to the target.
pub const NEAR_FAR: (f32, f32) = (0.05, 50.0);
/// The direction from the target to the camera, world frame (z up): in front (−y), to the right
/// (+x) and above, so that a slope falling along +x is seen from its side.
pub const VIEW_FROM: [f64; 3] = [0.55, -1.0, 0.6];
/// The camera's distance to the target as a multiple of the framed box's half-diagonal over
/// tan(fovy/2): 1 just fits a sphere round the box; more leaves room around it.
pub const FRAMING: f64 = 1.6;
/// Smallest half-diagonal framed, m (a point-like scene still shows some room).
pub const MIN_RADIUS_M: f64 = 0.02;
/// A half-space's patch reaches this many framed radii from the target.
pub const PATCH_RADII: f64 = 6.0;
/// Lines of a half-space's grid across its patch: about this many.
pub const GRID_LINES: f64 = 16.0;
/// The light a face is shaded by (a unit vector is taken), world frame: above, in front, left.
pub const LIGHT_FROM: [f64; 3] = [-0.3, -0.6, 1.0];
/// Smallest brightness of a face turned away from the light (ambient).
pub const AMBIENT: f64 = 0.45;

/// The fill of a triangle-mesh obstacle (shaded as a body's faces are).
pub const MESH_FILL: Rgb = [170, 160, 150];

/// One press of A or D turns the camera about the up axis by this much, degrees.
pub const YAW_STEP_DEG: f64 = 15.0;
/// One press of W or X raises or lowers it by this much, degrees.
pub const PITCH_STEP_DEG: f64 = 10.0;
/// W and X move the camera at most this far from [`VIEW_FROM`]'s elevation, degrees: from its
/// 27.7° above the level under plain gravity, to 82.7° and −27.3°, inside
/// [`ELEVATION_LIMITS_DEG`], so that every press moves the camera there.
pub const PITCH_LIMIT_DEG: f64 = 55.0;
/// The camera's elevation above the plane normal to up stays within these, degrees (it never
/// passes over the top, where up would flip).
pub const ELEVATION_LIMITS_DEG: (f64, f64) = (-80.0, 85.0);
/// One press of I or O divides or multiplies the camera's distance by this.
pub const ZOOM_STEP: f64 = 1.25;
/// I and O go at most this many steps either way.
pub const ZOOM_STEPS_LIMIT: i32 = 10;

/// How the keys have turned a 3D scene's camera about its bodies (2D scenes ignore it): A and D
/// turn it about the up axis, W and X raise and lower it, I and O move it in and out, C puts it
/// back ([`Orbit::default`], the view from [`VIEW_FROM`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Orbit {
    /// Turned about the up axis, degrees, in (−180, 180]: positive moves the camera
    /// counter-clockwise seen from above.
    pub yaw_deg: f64,
    /// Raised above [`VIEW_FROM`]'s elevation, degrees, within ±[`PITCH_LIMIT_DEG`].
    pub pitch_deg: f64,
    /// Zoom steps: the distance is [`ZOOM_STEP`] to this power (negative is closer).
    pub zoom_steps: i32,
}

impl Orbit {
    /// `yaw` steps of [`YAW_STEP_DEG`] more about up, wrapped into (−180, 180].
    pub fn turned(self, yaw: i32) -> Orbit {
        let mut yaw_deg = (self.yaw_deg + f64::from(yaw) * YAW_STEP_DEG) % 360.0;
        if yaw_deg <= -180.0 {
            yaw_deg += 360.0;
        } else if yaw_deg > 180.0 {
            yaw_deg -= 360.0;
        }
        Orbit { yaw_deg, ..self }
    }

    /// `pitch` steps of [`PITCH_STEP_DEG`] higher, within ±[`PITCH_LIMIT_DEG`].
    pub fn raised(self, pitch: i32) -> Orbit {
        let pitch_deg = (self.pitch_deg + f64::from(pitch) * PITCH_STEP_DEG)
            .clamp(-PITCH_LIMIT_DEG, PITCH_LIMIT_DEG);
        Orbit { pitch_deg, ..self }
    }

    /// `steps` zoom steps farther (negative: closer), within ±[`ZOOM_STEPS_LIMIT`].
    pub fn zoomed(self, steps: i32) -> Orbit {
        let zoom_steps = (self.zoom_steps + steps).clamp(-ZOOM_STEPS_LIMIT, ZOOM_STEPS_LIMIT);
        Orbit { zoom_steps, ..self }
    }

    /// The unit direction from the target to the camera for `up` (unit): [`VIEW_FROM`] turned
    /// by `yaw_deg` about `up`, then its elevation above the plane normal to `up` raised by
    /// `pitch_deg` and kept within [`ELEVATION_LIMITS_DEG`].
    pub fn direction(&self, up: &Vec3) -> Vec3 {
        let from = Vec3::from(VIEW_FROM).normalize();
        let level = from - up * from.dot(up);
        // A view straight along up has no level part: any direction normal to up serves.
        let h0 = level.try_normalize(1e-9).unwrap_or_else(|| {
            up.cross(&Vec3::x())
                .try_normalize(1e-9)
                .unwrap_or(Vec3::y())
        });
        let side = up.cross(&h0);
        let yaw = self.yaw_deg.to_radians();
        let h = h0 * yaw.cos() + side * yaw.sin();
        let (lo, hi) = ELEVATION_LIMITS_DEG;
        let elevation = (from.dot(up).clamp(-1.0, 1.0).asin().to_degrees() + self.pitch_deg)
            .clamp(lo, hi)
            .to_radians();
        h * elevation.cos() + up * elevation.sin()
    }

    /// The camera's distance as a multiple of the framed one.
    pub fn zoom(&self) -> f64 {
        ZOOM_STEP.powi(self.zoom_steps)
    }
}

/// A perspective camera on a 3D scene, world frame, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolidCamera {
    /// Where it stands.
    pub position: Vec3,
    /// What it looks at (the framed box's centre).
    pub target: Vec3,
    /// Its up direction (against gravity; +z without gravity).
    pub up: Vec3,
    /// The framed box's half-diagonal, m (at least [`MIN_RADIUS_M`]).
    pub radius: f64,
}

/// The camera on `points` (every body's nodes): aimed at their box's centre from
/// [`VIEW_FROM`] turned by `orbit`, far enough to show their box's sphere whole ([`FRAMING`],
/// times `orbit`'s zoom), up against `gravity` (m/s²).
pub fn solid_camera(points: &[Vec3], gravity: &Vec3, orbit: Orbit) -> SolidCamera {
    let (lo, hi) = points.iter().fold(
        (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let (target, radius) = if lo.x.is_finite() {
        ((lo + hi) * 0.5, (0.5 * (hi - lo).norm()).max(MIN_RADIUS_M))
    } else {
        (Vec3::zeros(), MIN_RADIUS_M)
    };
    let up = if gravity.norm() > 0.0 {
        -gravity.normalize()
    } else {
        Vec3::z()
    };
    let distance = FRAMING * radius / (0.5 * f64::from(FOVY_RAD)).tan() * orbit.zoom();
    SolidCamera {
        position: target + orbit.direction(&up) * distance,
        target,
        up,
        radius,
    }
}

/// A world point as macroquad's (f32).
pub fn gl(p: &Vec3) -> GlVec3 {
    GlVec3::new(p.x as f32, p.y as f32, p.z as f32)
}

impl SolidCamera {
    /// Its distance to the target, m.
    pub fn distance(&self) -> f64 {
        (self.position - self.target).norm()
    }

    /// Its near and far planes, m ([`NEAR_FAR`]).
    pub fn planes(&self) -> (f32, f32) {
        let d = self.distance() as f32;
        (NEAR_FAR.0 * d, NEAR_FAR.1 * d)
    }

    /// World → clip space for a view `rect` (its aspect): perspective of [`FOVY_RAD`] times
    /// the look-at, as macroquad's `Camera3D` makes it.
    pub fn matrix(&self, rect: Rect) -> Mat4 {
        let (near, far) = self.planes();
        Mat4::perspective_rh_gl(FOVY_RAD, rect.w / rect.h.max(1.0), near, far)
            * Mat4::look_at_rh(gl(&self.position), gl(&self.target), gl(&self.up))
    }

    /// Where world point `p` (m) shows in `rect`, px (y down); `None` behind the camera.
    pub fn to_screen(&self, rect: Rect, p: &Vec3) -> Option<(f32, f32)> {
        let q = gl(p);
        let c = self.matrix(rect) * Vec4::new(q.x, q.y, q.z, 1.0);
        if c.w <= 0.0 {
            return None;
        }
        let (nx, ny) = (c.x / c.w, c.y / c.w);
        Some((
            rect.x + 0.5 * (nx + 1.0) * rect.w,
            rect.y + 0.5 * (1.0 - ny) * rect.h,
        ))
    }
}

/// The GL viewport of `rect` in a window `screen_h` px high: (x, y from the bottom, w, h), px.
pub fn viewport(rect: Rect, screen_h: f32) -> (i32, i32, i32, i32) {
    (
        rect.x.round() as i32,
        (screen_h - rect.y - rect.h).round() as i32,
        rect.w.round() as i32,
        rect.h.round() as i32,
    )
}

/// Two unit tangents of half-space `h`'s surface, with its normal a right-handed frame.
pub fn surface_frame(h: &HalfSpace<3>) -> (Vec3, Vec3) {
    let n = h.normal;
    let seed = if n.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = (seed - n * seed.dot(&n)).normalize();
    (t1, n.cross(&t1))
}

/// The patch of a half-space's surface drawn around the camera's target.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    /// Its four corners, m, counter-clockwise seen from outside.
    pub corners: [Vec3; 4],
    /// Its grid lines' ends, m.
    pub lines: Vec<[Vec3; 2]>,
    /// The grid's spacing, m (1, 2 or 5 × 10ᵏ).
    pub spacing: f64,
}

/// The [`Patch`] of half-space `h`'s surface around `cam`'s target: [`PATCH_RADII`] framed
/// radii from the target's foot every way, its grid lines spaced at round numbers of metres
/// and anchored to the surface's point, so that a body moving over it is seen to.
pub fn half_space_patch(cam: &SolidCamera, h: &HalfSpace<3>) -> Patch {
    let (t1, t2) = surface_frame(h);
    let foot = cam.target - h.normal * h.distance(&cam.target);
    let half = PATCH_RADII * cam.radius;
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .map(|(a, b)| foot + t1 * (a * half) + t2 * (b * half));
    let spacing = super::layout::nice_step(2.0 * half, GRID_LINES);
    let mut lines = Vec::new();
    for (along, across) in [(t1, t2), (t2, t1)] {
        let s_mid = (foot - h.point).dot(&across);
        let first = ((s_mid - half) / spacing).ceil() as i64;
        let last = ((s_mid + half) / spacing).floor() as i64;
        for k in first..=last {
            let offset = k as f64 * spacing - s_mid;
            let mid = foot + across * offset;
            lines.push([mid - along * half, mid + along * half]);
        }
    }
    Patch {
        corners,
        lines,
        spacing,
    }
}

/// Colour `c` shaded for a face of unit outward normal `normal`: [`AMBIENT`] plus the rest by
/// how much it faces [`LIGHT_FROM`].
pub fn shade(c: Rgb, normal: &Vec3) -> Rgb {
    let light = Vec3::from(LIGHT_FROM).normalize();
    let k = AMBIENT + (1.0 - AMBIENT) * normal.dot(&light).max(0.0);
    c.map(|v| (f64::from(v) * k).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECT: Rect = Rect {
        x: 8.0,
        y: 8.0,
        w: 760.0,
        h: 470.0,
    };

    #[test]
    fn the_target_is_the_view_centre_and_up_is_up() {
        let pts = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.2, 0.1, 0.1)];
        let cam = solid_camera(&pts, &Vec3::new(0.0, 0.0, -9.81), Orbit::default());
        let (x, y) = cam.to_screen(RECT, &cam.target).unwrap();
        assert!((x - (RECT.x + RECT.w / 2.0)).abs() < 0.01, "{x}");
        assert!((y - (RECT.y + RECT.h / 2.0)).abs() < 0.01, "{y}");
        // A point above the target shows above it (smaller y), a point to +x right of it.
        let (_, above) = cam
            .to_screen(RECT, &(cam.target + Vec3::z() * 0.05))
            .unwrap();
        assert!(above < y);
        let (right, _) = cam
            .to_screen(RECT, &(cam.target + Vec3::x() * 0.05))
            .unwrap();
        assert!(right > x);
        // Every framed point is inside the view.
        for p in &pts {
            let (px, py) = cam.to_screen(RECT, p).unwrap();
            assert!(RECT.contains(px, py), "{p:?} at ({px}, {py})");
        }
        // Behind the camera: nothing.
        let behind = cam.position + (cam.position - cam.target);
        assert_eq!(cam.to_screen(RECT, &behind), None);
    }

    #[test]
    fn the_patch_lies_on_the_surface_and_its_grid_is_anchored_to_it() {
        let n = Vec3::new(-0.3, 0.0, 1.0).normalize();
        let h = HalfSpace::new(n, Vec3::new(0.0, 0.0, -0.1));
        let cam = solid_camera(
            &[Vec3::new(0.3, 0.0, 0.0)],
            &Vec3::new(0.0, 0.0, -9.81),
            Orbit::default(),
        );
        let Patch { corners, lines, .. } = half_space_patch(&cam, &h);
        for c in corners.iter().chain(lines.iter().flatten()) {
            assert!(h.distance(c).abs() < 1e-12);
        }
        // Counter-clockwise seen from outside: the normal of the first corner triangle is n.
        let normal = (corners[1] - corners[0]).cross(&(corners[2] - corners[0]));
        assert!(normal.normalize().dot(&n) > 1.0 - 1e-12);
        // Each way about GRID_LINES lines (a round spacing is at most 1.43 times the exact one).
        assert!(lines.len() >= GRID_LINES as usize, "{} lines", lines.len());
        // Moving the camera by whole grid spacings leaves the lines where they were.
        let (t1, _) = surface_frame(&h);
        let spacing = half_space_patch(&cam, &h).spacing;
        assert!((lines[1][0] - lines[0][0]).norm() - spacing < 1e-12);
        let moved = SolidCamera {
            target: cam.target + t1 * (3.0 * spacing),
            ..cam
        };
        let shifted = half_space_patch(&moved, &h).lines;
        let on_a_line = |p: &Vec3| {
            lines
                .iter()
                .any(|l| ((p - l[0]).cross(&(l[1] - l[0]))).norm() / (l[1] - l[0]).norm() < 1e-9)
        };
        assert!(shifted.iter().filter(|l| on_a_line(&l[0])).count() >= lines.len() / 3);
    }

    #[test]
    fn the_orbit_turns_the_camera_about_up_through_the_target_and_keeps_it_upright() {
        let pts = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.2, 0.1, 0.1)];
        let g = Vec3::new(0.0, 0.0, -9.81);
        let home = solid_camera(&pts, &g, Orbit::default());
        // The default is VIEW_FROM, as before the orbit.
        let from = Vec3::from(VIEW_FROM).normalize();
        assert!(((home.position - home.target).normalize() - from).norm() < 1e-12);
        let elevation = |c: &SolidCamera| ((c.position - c.target).normalize().z).asin();
        let azimuth =
            |c: &SolidCamera| (c.position.y - c.target.y).atan2(c.position.x - c.target.x);
        // Six presses of D: a quarter turn counter-clockwise seen from above, at the same
        // height and distance, the target still in the middle of the view.
        let mut o = Orbit::default();
        for _ in 0..6 {
            o = o.turned(1);
        }
        let turned = solid_camera(&pts, &g, o);
        assert!((turned.distance() - home.distance()).abs() < 1e-12);
        assert!((elevation(&turned) - elevation(&home)).abs() < 1e-12);
        let quarter = azimuth(&turned) - azimuth(&home);
        assert!(
            (quarter - std::f64::consts::FRAC_PI_2).abs() < 1e-12,
            "{quarter}"
        );
        let (x, y) = turned.to_screen(RECT, &turned.target).unwrap();
        assert!(
            (x - (RECT.x + RECT.w / 2.0)).abs() < 0.01
                && (y - (RECT.y + RECT.h / 2.0)).abs() < 0.01
        );
        // Twenty-four presses come back round.
        let round = (0..24).fold(Orbit::default(), |o, _| o.turned(1));
        assert!(round.yaw_deg.abs() < 1e-9, "{round:?}");
        // W raises by 10° a press up to 55° more, never over the top; X lowers.
        let raised = solid_camera(&pts, &g, Orbit::default().raised(2));
        assert!((elevation(&raised) - elevation(&home) - 20f64.to_radians()).abs() < 1e-12);
        let top = (0..20).fold(Orbit::default(), |o, _| o.raised(1));
        assert_eq!(top.pitch_deg, PITCH_LIMIT_DEG);
        let highest = solid_camera(&pts, &g, top);
        assert!(elevation(&highest).to_degrees() <= ELEVATION_LIMITS_DEG.1 + 1e-9);
        // ...and a point above the target still shows above it there.
        let (_, above) = highest
            .to_screen(RECT, &(highest.target + Vec3::z() * 0.05))
            .unwrap();
        let (_, at) = highest.to_screen(RECT, &highest.target).unwrap();
        assert!(above < at);
        // O moves it out by ZOOM_STEP a press, I in.
        let out = solid_camera(&pts, &g, Orbit::default().zoomed(2));
        assert!((out.distance() / home.distance() - ZOOM_STEP * ZOOM_STEP).abs() < 1e-12);
        assert_eq!(Orbit::default().zoomed(-100).zoom_steps, -ZOOM_STEPS_LIMIT);
        // Under tilted gravity the turn is about up (−g), not about z.
        let tilted = Vec3::new(3.355218, 0.0, -9.218385);
        let up = -tilted.normalize();
        let a = solid_camera(&pts, &tilted, Orbit::default());
        let b = solid_camera(&pts, &tilted, Orbit::default().turned(5));
        let along_up = |c: &SolidCamera| (c.position - c.target).dot(&up);
        assert!((along_up(&a) - along_up(&b)).abs() < 1e-12);
    }

    #[test]
    fn a_face_towards_the_light_is_brighter() {
        let c = [200, 100, 50];
        let lit = shade(c, &Vec3::from(LIGHT_FROM).normalize());
        assert_eq!(lit, c);
        let dark = shade(c, &-Vec3::from(LIGHT_FROM).normalize());
        assert_eq!(dark, [90, 45, 23]);
        assert_eq!(viewport(RECT, 800.0), (8, 322, 760, 470));
    }
}
