//! Where a scene's bodies and polyline obstacles sit in its state vector (body by body in name
//! order, then every polyline's vertices), and the boundary surface of both that body–body and
//! body–polyline contact pairs are made from (SPEC.md §7). The system and the start-clearance
//! checks both take it from here, so they number nodes alike.

use std::ops::Range;

use super::{BodySpec, ObstacleShape, ObstacleSpec};
use crate::contact::ContactSurface;
use crate::energy::Vec2;

/// The nodes of a scene and its boundary surface.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Every node's position at t = 0, m.
    pub x0: Vec<Vec2>,
    /// Every body's nodes.
    pub bodies: Vec<Range<usize>>,
    /// Every polyline obstacle's nodes, by obstacle index.
    pub polylines: Vec<(usize, Range<usize>)>,
    /// Boundary vertices (with their contact areas) and edges of the bodies and polylines,
    /// numbered as the friction table numbers them (bodies, then obstacles).
    pub boundary: ContactSurface,
}

/// The geometry of `bodies` and `obstacles`.
pub fn geometry(bodies: &[BodySpec], obstacles: &[ObstacleSpec]) -> Geometry {
    let mut x0 = Vec::new();
    let mut ranges = Vec::with_capacity(bodies.len());
    let mut boundary = ContactSurface::default();
    for (k, b) in bodies.iter().enumerate() {
        let start = x0.len();
        x0.extend_from_slice(&b.mesh.x0);
        let edges = b.mesh.boundary_edges();
        let mut on_boundary = vec![false; b.mesh.len()];
        for &[p, q] in &edges {
            on_boundary[p] = true;
            on_boundary[q] = true;
            boundary.push_edge([start + p, start + q], k);
        }
        for (i, _) in on_boundary.iter().enumerate().filter(|(_, on)| **on) {
            boundary.push(start + i, b.mesh.contact_area[i], k);
        }
        ranges.push(start..x0.len());
    }
    let mut polylines = Vec::new();
    for (o, ob) in obstacles.iter().enumerate() {
        if let ObstacleShape::Polyline {
            points,
            contact_area,
        } = &ob.shape
        {
            let number = bodies.len() + o;
            let start = x0.len();
            x0.extend_from_slice(points);
            for (i, &a) in contact_area.iter().enumerate() {
                boundary.push(start + i, a, number);
            }
            for i in 1..points.len() {
                boundary.push_edge([start + i - 1, start + i], number);
            }
            polylines.push((o, start..x0.len()));
        }
    }
    Geometry {
        x0,
        bodies: ranges,
        polylines,
        boundary,
    }
}
