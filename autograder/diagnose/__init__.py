"""Name the bug behind a wrong result: behavioural probes, the mutant catalog, and call properties.

:mod:`.registry`
    Every nameable bug: its id, the functions it belongs to, its hint.
:mod:`.case`
    A failed call, and the questions probes may ask about it.
:mod:`.probes`
    Behavioural probes that generalise beyond any list of known wrong versions.
:mod:`.replay`
    The mutant catalog replayed on a failed call.
:mod:`.properties`
    What every call must do besides returning the right values.
:mod:`.diagnosis`
    :func:`~.diagnosis.diagnose`: all of the above, as diagnoses with hints.
"""
