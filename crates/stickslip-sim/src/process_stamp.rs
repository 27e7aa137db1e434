//! Who wrote a staging directory or a temporary file, and whether that process still runs: the
//! owner check of every clean-up of stale files (README, "What `--out DIR` does").
//!
//! A [`ProcessStamp`] names a process so that it can be recognised later from anywhere that
//! shares the filesystem: the host name, the kernel's boot id (`/proc/sys/kernel/random/boot_id`,
//! new at every boot), the PID namespace (`/proc/self/ns/pid`), the PID and the process's start
//! time (field 22 of `/proc/PID/stat`, clock ticks since boot, so a reused PID is told apart).
//! Another process judges the stamp with [`ProcessStamp::liveness`]:
//!
//! * on the same host, boot and PID namespace, and with `/proc` showing that namespace:
//!   [`Liveness::Ended`] when no process has that PID with that start time, else
//!   [`Liveness::Running`];
//! * anywhere else (another host or container sharing the filesystem, a stamp from before a
//!   reboot, a system without `/proc`): [`Liveness::Unknown`], and nothing is removed.
//!
//! Only files that carry a stamp written when stickslip created them are ever judged; a name
//! or the types of the files inside never make anything stickslip's.

use serde::{Deserialize, Serialize};

/// A process, as recorded in a staging marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessStamp {
    /// The host name (`gethostname`).
    pub host: String,
    /// The kernel's boot id.
    pub boot_id: String,
    /// The PID namespace, as `/proc/self/ns/pid` reads (`pid:[4026531836]`).
    pub pid_namespace: String,
    /// The process id, in that namespace.
    pub pid: u32,
    /// The process's start time, clock ticks since boot.
    pub start_ticks: u64,
}

/// What a stamp says about its process, as seen from this one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// The process still runs (or might: a PID with that start time exists).
    Running,
    /// The process has ended: same host, boot and namespace, and no such process.
    Ended,
    /// This process cannot tell (another host, container or boot; no `/proc`); the reason.
    Unknown(String),
}

#[cfg(target_os = "linux")]
fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The start time (ticks since boot) in the text of `/proc/PID/stat`: field 22, counted after
/// the command name in parentheses (which may itself hold spaces and parentheses).
pub fn start_ticks_of_stat(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    // Fields 3, 4, … follow the command name; the start time is field 22.
    after.split_whitespace().nth(22 - 3)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into a buffer we own.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// Whether `/proc` shows this process's PID namespace: `/proc/self` names our own PID.
#[cfg(target_os = "linux")]
fn proc_is_ours() -> bool {
    std::fs::read_link("/proc/self")
        .ok()
        .and_then(|p| p.to_str().and_then(|s| s.parse::<u32>().ok()))
        == Some(std::process::id())
}

impl ProcessStamp {
    /// This process's stamp; `None` where it cannot be made (no `/proc`: not Linux), and then
    /// nothing this process writes is ever judged stale by another.
    pub fn current() -> Option<ProcessStamp> {
        #[cfg(target_os = "linux")]
        {
            let pid = std::process::id();
            if !proc_is_ours() {
                return None;
            }
            Some(ProcessStamp {
                host: host_name()?,
                boot_id: read_trimmed("/proc/sys/kernel/random/boot_id")?,
                pid_namespace: std::fs::read_link("/proc/self/ns/pid")
                    .ok()?
                    .to_string_lossy()
                    .into_owned(),
                pid,
                start_ticks: start_ticks_of_stat(
                    &std::fs::read_to_string("/proc/self/stat").ok()?,
                )?,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// Whether the stamped process still runs, as far as this process can tell (module docs).
    pub fn liveness(&self) -> Liveness {
        let Some(me) = ProcessStamp::current() else {
            return Liveness::Unknown("this system has no /proc to check processes in".into());
        };
        if self.host != me.host || self.boot_id != me.boot_id {
            return Liveness::Unknown(format!(
                "written on host {} (boot {}), not this one or before a reboot",
                self.host, self.boot_id
            ));
        }
        if self.pid_namespace != me.pid_namespace {
            return Liveness::Unknown(format!(
                "written in another PID namespace ({}: another container)",
                self.pid_namespace
            ));
        }
        if self.pid == me.pid && self.start_ticks == me.start_ticks {
            return Liveness::Running;
        }
        match std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) {
            Ok(stat) => match start_ticks_of_stat(&stat) {
                Some(start) if start == self.start_ticks => Liveness::Running,
                // The PID now belongs to a process started at another time.
                Some(_) => Liveness::Ended,
                None => Liveness::Unknown(format!("/proc/{}/stat does not parse", self.pid)),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Liveness::Ended,
            Err(e) => Liveness::Unknown(format!("/proc/{}/stat: {e}", self.pid)),
        }
    }
}

/// The short form of this process's stamp, for a temporary file's name: `BOOT.NS.PID.START`
/// (boot id, the number of the PID namespace, PID, start time); `unknown` where no stamp can be
/// made (such a file is never judged stale).
pub fn current_token() -> String {
    ProcessStamp::current().map_or_else(|| "unknown".into(), |s| s.token())
}

impl ProcessStamp {
    /// The stamp's short form for file names (see [`current_token`]). The host is left out: the
    /// boot id alone names one boot of one machine.
    pub fn token(&self) -> String {
        let ns: String = self
            .pid_namespace
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        format!("{}.{ns}.{}.{}", self.boot_id, self.pid, self.start_ticks)
    }

    /// Whether the process a [`token`](ProcessStamp::token) names still runs, as seen from this
    /// one: [`Liveness::Unknown`] for a token of another boot or namespace, or one that does not
    /// parse.
    pub fn liveness_of_token(token: &str) -> Liveness {
        let Some(me) = ProcessStamp::current() else {
            return Liveness::Unknown("this system has no /proc to check processes in".into());
        };
        let parts: Vec<&str> = token.split('.').collect();
        let [boot, ns, pid, start] = parts.as_slice() else {
            return Liveness::Unknown(format!("not a process stamp: {token}"));
        };
        let (Ok(pid), Ok(start_ticks)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
            return Liveness::Unknown(format!("not a process stamp: {token}"));
        };
        let mine = me.token();
        let mut my_parts = mine.split('.');
        if my_parts.next() != Some(*boot) || my_parts.next() != Some(*ns) {
            return Liveness::Unknown("written on another host, boot or PID namespace".into());
        }
        ProcessStamp {
            pid,
            start_ticks,
            ..me
        }
        .liveness()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_is_field_22_even_with_spaces_in_the_name() {
        // A command name with spaces and a parenthesis, as a user may give a process.
        let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194304 97 0 0 0 0 0 0 0 20 0 1 0 \
                    118064 3133440 355";
        assert_eq!(start_ticks_of_stat(stat), Some(118064));
        assert_eq!(start_ticks_of_stat("4242 (x) S 1"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_runs_and_a_stamp_of_another_boot_is_not_judged() {
        let me = ProcessStamp::current().expect("Linux has /proc");
        assert_eq!(me.liveness(), Liveness::Running);
        let other_boot = ProcessStamp {
            boot_id: "00000000-0000-0000-0000-000000000000".into(),
            ..me.clone()
        };
        assert!(matches!(other_boot.liveness(), Liveness::Unknown(_)));
        let other_namespace = ProcessStamp {
            pid_namespace: "pid:[1]".into(),
            ..me.clone()
        };
        assert!(matches!(other_namespace.liveness(), Liveness::Unknown(_)));
        // The same PID started at another time is another process: this one has ended.
        let reused = ProcessStamp {
            start_ticks: me.start_ticks + 1,
            ..me.clone()
        };
        assert_eq!(reused.liveness(), Liveness::Ended);
        assert_eq!(
            ProcessStamp::liveness_of_token(&me.token()),
            Liveness::Running
        );
        assert_eq!(
            ProcessStamp::liveness_of_token(&reused.token()),
            Liveness::Ended
        );
        let elsewhere = other_boot.token();
        assert!(matches!(
            ProcessStamp::liveness_of_token(&elsewhere),
            Liveness::Unknown(_)
        ));
        assert!(matches!(
            ProcessStamp::liveness_of_token("4242"),
            Liveness::Unknown(_)
        ));
    }
}
