//! The `stickslip` binary: see [`stickslip::app::cli`].

use clap::Parser;

fn main() {
    let cli = stickslip::app::cli::Cli::parse();
    if let Err(e) = stickslip::app::cli::main_with(cli) {
        eprintln!("stickslip: error: {e}");
        std::process::exit(e.exit_code());
    }
}
