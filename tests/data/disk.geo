// A disk of radius 0.1 m in the plane z = 0, triangles of about 0.04 m: a 2D body for
// crates/stickslip-sim/tests/scene/mesh_files.rs.
// Made with: gmsh -2 -format msh41 disk.geo -o disk.msh
SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 0.1};
Mesh.MeshSizeMin = 0.04;
Mesh.MeshSizeMax = 0.04;
