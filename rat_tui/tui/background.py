"""What the app does by itself, off the UI thread: warm Spark up (and clean up after a crash), look at
the bucket for colleagues' edits, purge old processed landing files once a day, run the triggers when no
`serve` does (core/automation/scheduler.py). What changes from outside (another process's runs, state deleted
under the app: core/background/outside.py) comes as events on the one stream (reactions.py)."""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from ..core.automation.scheduler import INTERVAL_SECONDS, Scheduler
from ..core.failures import failure_sentence
from ..core.errors import RatError
from .components.automation_pane import next_run_text
from .components.loading import app_closing
from .components.status_bar import StatusBar
from .host import AppHost
from .messages import ActionDone, ActionFailed

if TYPE_CHECKING:
    from ..core.remote.storage import BucketStorage

REMOTE_CHECK_SECONDS = 30  # how often the bucket is asked for colleagues' edits


class Background:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self._remote_check = threading.Lock()
        self._scheduling = threading.Lock()
        # clear from the warm-up's start to its end: what would ask Spark meanwhile counts as work and stops
        # the warm-up (a freshness query of a `stale` trigger every 2 s, the purge run as the app opens, the
        # tree's badges of a `column` freshness policy); those wait seconds (until_warm)
        self._warmed = threading.Event()
        self._warmed.set()
        wb = app.workbench
        self.scheduler = Scheduler(wb.automation, wb.project.state_dir, "rat-tui")

    def start_rounds(self) -> None:
        """What comes round by itself while the app is open (not under a script): the daily purge of old
        processed landing files, the triggers, and the bucket's news."""
        app = self.app
        self.auto_purge()
        app.set_interval(86400, self.auto_purge)
        self.schedule()
        app.set_interval(INTERVAL_SECONDS, self.schedule)
        remote = app.workbench.remote
        if remote is not None:
            app.query_one(StatusBar).update_status(bucket=remote.config.bucket, bucket_state="connecting")
            self.check_remote()
            app.set_interval(REMOTE_CHECK_SECONDS, self.check_remote)

    def warm_up(self) -> None:
        self._warmed.clear()
        self.app.run_worker(self._warm_up, thread=True, group="spark")

    def _warm_up(self) -> None:
        wb = self.app.workbench
        try:
            wb.spark.start_background()
            try:
                done = wb.runs.cleanup_leftovers()
            except RatError as exc:
                self.app.post_message(ActionFailed("start Spark", exc.sentence()))
                # no warm-up to wait for
                self.app.update_from_thread(StatusBar, lambda bar: bar.update_status(warm="stopped"))
                return
            for line in done:
                self.app.post_message(ActionDone("recovery", line))
            wb.warm_up().join()  # after the recovery, which would only interrupt it
        finally:
            self._warmed.set()

    def check_remote(self) -> None:
        """Connect on the first call, then look for colleagues' edits; new files come in at once."""
        self.app.run_worker(self._check_remote, thread=True, exclusive=True, group="remote")

    def _check_remote(self) -> None:
        remote = self.app.workbench.remote
        assert remote is not None
        if not self._remote_check.acquire(blocking=False):
            return  # the previous check is still waiting on the bucket: do not pile up
        try:
            self._check(remote)
        finally:
            self._remote_check.release()

    def _check(self, remote: BucketStorage) -> None:
        app = self.app
        try:
            first = not remote.connected
            pulled = remote.connect().pulled if first else remote.refresh()
        except Exception as exc:  # never let a network problem close the app
            sentence = failure_sentence("checking the bucket", exc)
            state = "refused credentials" if "credentials" in sentence else "unreachable"
            shown = app.query(StatusBar)  # the app may be closing
            if shown and shown.first().bucket_state != state:
                app.post_message(ActionFailed("bucket", sentence))
            app.update_from_thread(StatusBar, lambda bar: bar.update_status(bucket_state=state))
            return
        waiting = len(remote.changes)
        state = f"{waiting} change(s) to pull" if waiting else "in step"
        app.update_from_thread(StatusBar, lambda bar: bar.update_status(bucket_state=state))
        if first or pulled or remote.changes:
            app.call_from_thread(app.refresh_tree)
        if pulled:
            app.post_message(ActionDone("bucket", f"pulled {len(pulled)} new file(s) from the bucket"))

    def schedule(self) -> None:
        """Evaluate the triggers (unless a `serve` runs them) and show the next scheduled run."""
        self.app.run_worker(self._schedule, thread=True, group="scheduler")

    def _schedule(self) -> None:
        if not self._warmed.is_set() or not self._scheduling.acquire(blocking=False):
            return  # the warm-up runs, or the previous evaluation is still going
        try:
            self.scheduler.evaluate_once()
            text = next_run_text(self.app.workbench.automation.next_scheduled(), time.time())
        except Exception as exc:  # a half-written config.yaml: say so, try again at the next tick
            self.app.post_message(ActionFailed("triggers", failure_sentence("evaluating the triggers", exc)))
            return
        finally:
            self._scheduling.release()
        self.app.update_from_thread(StatusBar, lambda bar: bar.update_status(next_run=text))

    def auto_purge(self) -> None:
        self.app.run_worker(self._auto_purge, thread=True, group="purge")

    def until_warm(self) -> bool:
        """Wait out the warm-up (from a worker thread); False when the app closes meanwhile. What the app
        does by itself and asks Spark waits so (the purge, the tree's freshness badges): it would stop the
        warm-up as a user's run does."""
        while not self._warmed.wait(0.5):
            if app_closing(self.app):
                return False
        return True

    def _auto_purge(self) -> None:
        if not self.until_warm():
            return
        try:
            result = self.app.workbench.upkeep.auto_purge()
        except Exception as exc:  # e.g. the bucket is unreachable: try again tomorrow, say so now
            self.app.post_message(ActionFailed("auto-purge", failure_sentence("auto-purge", exc)))
            return
        if result.purged:
            self.app.post_message(ActionDone("auto-purge", f"removed {result.purged} old processed landing file(s)"))
