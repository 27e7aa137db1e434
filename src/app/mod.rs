//! The command line: parsing and dispatch ([`cli`]), the output directories ([`output`]), the
//! signal handling that keeps them clean ([`signals`]), and the commands that are not the viewer:
//! `plot` ([`plot`]), `run` on a rigid case ([`rigid_command`]) and on a scene of bodies
//! ([`scene_command`]), with its ParaView output ([`vtk_output`]).

pub mod cli;
pub mod output;
pub mod plot;
pub mod rigid_command;
pub mod scene_command;
pub mod scene_plot;
pub mod signals;
pub mod solid_plot;
pub mod solid_scene_command;
pub mod sweep_command;
pub mod vtk_output;
