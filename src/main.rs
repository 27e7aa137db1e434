//! The `stickslip` binary: see [`stickslip::app::cli`].

use clap::Parser;
use clap::error::ErrorKind;
use stickslip::app::cli::{self, CliError};

fn main() {
    // SAFETY: first thing in main, while this is the only thread of the process.
    unsafe { stickslip::gpu::quiet_headless_vulkan_probe() };
    // Before any other thread exists: SIGINT, SIGTERM and SIGHUP are taken by one thread that
    // removes the staging directory (see `stickslip::app::signals`).
    stickslip::app::signals::install();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => usage_error(e),
    };
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

/// A command line clap refuses: help and version as clap prints them; a usage error as one
/// `error:` line (clap's message with its lines joined, without the usage block) and clap's
/// `--help` hint, exit 2.
fn usage_error(e: clap::Error) -> ! {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let is_hint = |l: &&str| l.starts_with("For more information");
    let message = text.split("\n\nUsage:").next().unwrap_or_default();
    let line: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !is_hint(l))
        .collect();
    let hint = text
        .lines()
        .map(str::trim)
        .rfind(is_hint)
        .unwrap_or("For more information, try '--help'.");
    eprintln!("{}\n{hint}", stickslip::console::one_line(&line.join(" ")));
    std::process::exit(e.exit_code());
}
