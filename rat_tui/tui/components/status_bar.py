"""Status bar: Spark session state, watch on/off, running and queued runs, the bucket (if any), the next
scheduled run (if any)."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.text import count

STATE_STYLE = {"stopped": "grey50", "starting": "yellow", "ready": "green", "busy": "cyan", "failed": "red"}


class StatusBar(Static):
    def __init__(self) -> None:
        super().__init__(id="status-bar")
        self.spark_state, self.spark_reason, self.master = "stopped", "", ""
        self.watching, self.running, self.queued = False, 0, 0
        self.executors, self.cores = 0, 0
        self.bucket, self.bucket_state = "", ""  # e.g. "rat", "2 changes to pull" / "unreachable"
        self.next_run = ""  # e.g. "next ns.bronze.a 06:00 (in 3h 12m)"; "" with no cron trigger
        # The warm-up: "" none, "pending" (Spark starting), "warming", "done" or "stopped"; and its steps.
        self.warm, self.warm_done, self.warm_total = "", 0, 0

    def on_mount(self) -> None:
        self.render_status()

    def update_status(self, **fields) -> None:
        for key, value in fields.items():
            setattr(self, key, value)
        self.render_status()

    def _resources(self) -> str:
        if not self.cores:
            return ""
        executors = f" · {count(self.executors, 'executor')}" if self.executors else ""
        return f"{executors} · {count(self.cores, 'core')}"

    def _spark(self) -> tuple[str, str]:
        """"ready" only once the warm-up is over: the first `r` before it pays Spark's first use."""
        if self.spark_state == "ready" and self.warm in ("pending", "warming"):
            steps = f" {self.warm_done}/{self.warm_total}" if self.warm_total else ""
            return f"warming{steps}", "yellow"
        return self.spark_state, STATE_STYLE.get(self.spark_state, "")

    def render_status(self) -> None:
        text = Text.assemble(
            "Spark ", self._spark(),
            (f" ({self.master}{self._resources()})" if self.master else "", "grey50"),
        )
        if self.spark_state == "failed" and self.spark_reason:
            text.append(f": {self.spark_reason}", style="red")
        text.append("  │  watch ")
        text.append("on" if self.watching else "off", style="green" if self.watching else "grey50")
        text.append(f"  │  running {self.running} · queued {self.queued}")
        if self.bucket:
            text.append(f"  │  bucket {self.bucket} ")
            text.append(self.bucket_state, style="red" if "unreachable" in self.bucket_state or "refused" in
                        self.bucket_state else "cyan" if self.bucket_state != "in step" else "green")
        if self.next_run:
            text.append(f"  │  {self.next_run}")
        self.update(text)
