//! Orchestration: the case runner, verdicts and output files.

pub mod cli;
pub mod output;
pub mod plot;
pub mod rigid_command;
pub mod runner;
pub mod signals;
pub mod sweep_command;
pub mod verdict;
pub mod view;
