// A block of 0.2 × 0.1 × 0.1 m, tetrahedra of about 0.06 m: a 3D body for
// crates/stickslip-sim/tests/scene/mesh_files.rs.
// Made with: gmsh -3 -format msh41 block.geo -o block.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.2, 0.1, 0.1};
Mesh.MeshSizeMin = 0.06;
Mesh.MeshSizeMax = 0.06;
