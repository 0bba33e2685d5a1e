"""Why Spark's JVM is gone, in one sentence: a pipeline that collects too much kills the driver (in local
mode the executors share its heap), and every later call then fails with a bare "Connection refused"."""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen, TimeoutExpired

_LOG_TAIL_BYTES = 256 * 1024
_OUT_OF_MEMORY = "java.lang.OutOfMemoryError"
# What a failed call says when the JVM may be on its way out; how long to wait for it to go. The shutdown hook
# that follows a task's OutOfMemoryError cancels the running job, whose error then names no memory.
_DYING_SIGNS = ("OutOfMemoryError", "Java heap space", "Connection refused", "its Java side is gone", "Answer from Java side is empty",
                "Error while sending or receiving", "Error while receiving", "SparkContext was shut down",
                "SparkContext has been shutdown")
_DYING_SECONDS = 15.0


def _readable(exc: BaseException) -> str | None:
    """`str(exc)`, or None when that fails: a Java exception's text is its stack trace, asked of the JVM."""
    try:
        return str(exc)
    except Exception:
        return None


def exception_text(exc: BaseException) -> str:
    """`str(exc)`, which for a Java exception asks the JVM for its stack trace: once the JVM is gone that
    raises in turn (a run's error handler then crashed and left the run without an error)."""
    text = _readable(exc)
    return text if text is not None else getattr(exc, "errmsg", "") or f"{type(exc).__name__} (its Java side is gone)"


@dataclass(frozen=True)
class LaunchedJvm:
    """The JVM this process started (None of it when Spark runs elsewhere: nothing to watch here)."""
    process: Popen
    spark_log: Path
    log_since: int

    def exit_code(self) -> int | None:
        return self.process.poll()

    def died_of(self, exc: BaseException) -> bool:
        """Whether the JVM is gone after `exc`. A task's OutOfMemoryError makes Spark exit the JVM, but only
        after its shutdown hooks; the call that failed on it returns first, so for such an error (or a lost
        connection, or an error whose text the JVM can no longer give) this waits a little for the exit instead
        of taking the JVM for alive."""
        if self.exit_code() is not None:
            return True
        text = _readable(exc)  # None: the JVM could not even say what went wrong (it is on its way out)
        if text is not None and not any(sign in text for sign in _DYING_SIGNS):
            return False
        try:
            self.process.wait(timeout=_DYING_SECONDS)
        except TimeoutExpired:
            return False
        return True

    def sentence(self, driver_memory: str | None) -> str:
        return exit_sentence(self.process.returncode, self.spark_log, self.log_since, driver_memory)


def _memory_setting(driver_memory: str | None) -> str:
    return f"spark.driver_memory in rat.yaml (now {driver_memory})" if driver_memory else \
        "spark.driver_memory in rat.yaml (unset: Spark's default of 1g)"


def survived_out_of_memory(exc: BaseException, driver_memory: str | None) -> str | None:
    """The sentence for a call that ran out of memory while the JVM lived on (the error reached the driver's
    own thread, which Spark survives), or None when `exc` is no such error."""
    text = exception_text(exc)
    if "OutOfMemoryError" not in text and "Java heap space" not in text:
        return None
    return (f"Spark ran out of memory during this work (OutOfMemoryError: Java heap space) and recovered; read "
            f"less into one task or the driver, or raise {_memory_setting(driver_memory)}")


def exit_sentence(returncode: int, spark_log: Path, since: int, driver_memory: str | None) -> str:
    """What happened to the JVM, what to change, and that the next command starts a new one. `since` is
    where the log ended when this JVM started: an earlier JVM's death is no cause of this one's."""
    memory = _memory_setting(driver_memory)
    oom = _out_of_memory_line(spark_log, since)
    if oom is not None:
        cause = f"it ran out of memory ({oom}); read less into one task or the driver, or raise {memory}"
    elif returncode == -signal.SIGKILL:  # what the kernel's out-of-memory killer sends, and `kill -9`
        cause = f"it was killed (SIGKILL), by the system when memory ran out or by hand; if memory ran out, raise {memory}"
    elif returncode < 0:
        cause = f"it was stopped by {_signal_name(-returncode)}"
    else:
        cause = f"it exited with code {returncode}"
    return (f"Spark stopped during this work: {cause}; it starts again for the next command "
            f"(details in .rat/logs/{spark_log.name})")


def _out_of_memory_line(spark_log: Path, since: int) -> str | None:
    """The last OutOfMemoryError the log's tail names (`Java heap space`, `GC overhead limit exceeded`)."""
    try:
        with spark_log.open("rb") as log:
            log.seek(max(log.seek(0, os.SEEK_END) - _LOG_TAIL_BYTES, since))
            tail = log.read().decode("utf-8", "replace")
    except OSError:
        return None
    found = [line.strip() for line in tail.splitlines() if _OUT_OF_MEMORY in line]
    if not found:
        return None
    last = found[-1]
    return last[last.index(_OUT_OF_MEMORY):].removeprefix("java.lang.")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
