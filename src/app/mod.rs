//! Orchestration: the case runner, verdicts and output files.

pub mod cli;
pub mod console;
pub mod graphics;
pub mod output;
pub mod plot;
pub mod rigid_command;
pub mod runner;
pub mod signals;
pub mod verdict;
pub mod view;
