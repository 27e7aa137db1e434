// A disk drawn with the built-in kernel's circle arcs, whose centre point is a model point
// that no triangle uses: Gmsh writes it as a node, which a body must refuse (unreferenced).
// Made with: gmsh -2 -format msh41 disk_centre_point.geo -o disk_centre_point.msh
r = 0.1;
Point(1) = {0, 0, 0, 0.05};
Point(2) = {r, 0, 0, 0.05};
Point(3) = {0, r, 0, 0.05};
Point(4) = {-r, 0, 0, 0.05};
Point(5) = {0, -r, 0, 0.05};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
