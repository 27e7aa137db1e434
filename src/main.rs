//! The `stickslip` binary: see [`stickslip::app::cli`].

use clap::Parser;
use stickslip::app::cli::{self, CliError};

fn main() {
    // SAFETY: first thing in main, while this is the only thread of the process.
    unsafe { stickslip::gpu::quiet_headless_vulkan_probe() };
    // Before any other thread exists: SIGINT, SIGTERM and SIGHUP are taken by one thread that
    // removes the staging directory (see `stickslip::app::signals`).
    stickslip::app::signals::install();
    let args = cli::Cli::parse();
    match cli::main_with(args) {
        Ok(()) => {}
        // The reader went away (`| head -1`): nothing more to say, and nowhere to say it.
        Err(CliError::StdoutClosed) => std::process::exit(0),
        Err(e) => {
            eprintln!(
                "stickslip: error: {}",
                stickslip::console::one_line(&e.to_string())
            );
            std::process::exit(e.exit_code());
        }
    }
}
