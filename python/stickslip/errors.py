"""The exceptions of stickslip: the command line's exit codes as Python exceptions."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: a case file, a sweep file, an override or an option breaks a rule.

    ``str(e)`` is the command line's exit-2 message, word for word (without the leading
    ``stickslip: error:``): one line naming the file, the key and the rule, e.g.
    ``a.toml: key `friction.mu`: must be finite and >= 0 (got -0.1)``. The pieces are also
    attributes; each is ``None`` where the message has none (an option has no file).
    """

    file: str | None
    """The case or sweep file at fault."""
    key: str | None
    """The dotted key (``friction.mu``), or the option (``--duration``)."""
    rule: str | None
    """The rule broken, in words."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        key: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.file = file
        self.key = key
        self.rule = rule


class RunError(RuntimeError):
    """A run failed (the command line's exit 1): the solver's diagnostics (step, time,
    iteration, residual), a GPU that was required and is not there, a sweep that could not run.
    """
