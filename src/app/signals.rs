//! Interrupts of the binary: SIGINT, SIGTERM and SIGHUP remove the run's staging directory (and
//! the parents its run created) and end the process with the conventional status 128 + signal
//! number (130, 143, 129), after one line on stderr.
//!
//! The signals are blocked in every thread ([`install`] runs first in `main`, before any other
//! thread exists, and threads inherit the mask) and taken by one thread with `sigwait`. That
//! thread runs ordinary code, not a signal handler, so it may take locks and remove directories:
//! it takes the staging lock of [`crate::app::output`], which the main thread holds while it
//! writes a file into the staging directory or commits it, so the directory is never removed
//! under a half-done write or rename, and nothing is written after it is gone.
//!
//! SIGPIPE is left as Rust sets it (ignored): a write to a closed stdout returns `EPIPE`, which
//! the CLI turns into a quiet exit through its normal error path, so the staging directory is
//! cleaned up by the usual drop. Restoring SIGPIPE's default action would instead kill the
//! process on that write, with no cleanup at all.

/// Blocks SIGINT, SIGTERM and SIGHUP and starts the thread that takes them. Call it first in
/// `main`, before any other thread is started (threads started later inherit the block).
///
/// A signal the process was started with ignored (SIGHUP under `nohup`, SIGINT for a
/// background job of a non-interactive shell) stays ignored: Linux does not discard a blocked
/// signal even when its action is "ignore", so taking it would override the user's choice.
#[cfg(unix)]
pub fn install() {
    // SAFETY: plain libc calls on a sigset_t we own; pthread_sigmask changes only this
    // thread's mask, which threads started afterwards inherit.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let mut current: libc::sigaction = std::mem::zeroed();
            let ignored = libc::sigaction(sig, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN;
            if !ignored {
                libc::sigaddset(&mut set, sig);
            }
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            // Without the block the default actions apply: the process dies without cleanup,
            // as before. Nothing else to do.
            return;
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("stickslip-signals".into())
        .spawn(move || {
            loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: `set` is a valid, initialised signal set; `sig` a valid out pointer.
                if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                    on_signal(sig);
                }
            }
        });
    if spawned.is_err() {
        // No thread to take them: unblock, so that the signals at least end the process.
        // SAFETY: as above.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// Nothing to install where there are no POSIX signals.
#[cfg(not(unix))]
pub fn install() {}

#[cfg(unix)]
fn on_signal(sig: libc::c_int) -> ! {
    let name = match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    };
    crate::app::output::with_staging_removed(|| {
        eprintln!("\nstickslip: interrupted by {name}; partial output removed");
        // SAFETY: _exit ends the process at once, without running atexit handlers (a GPU
        // driver's among them) while the main thread may still be inside that driver.
        unsafe { libc::_exit(128 + sig) }
    })
}
