"""Keys that keep the project healthy: doctor (then its fixes), purge (the plan first), pull from the bucket."""
from __future__ import annotations

from functools import partial

from ...core.commands.upkeep_results import DoctorReport, PurgeReport
from ...core.errors import RatError
from ...core.upkeep.doctor import Finding
from ..components.modals import Confirm, purge_plan_text
from ..components.project_tree import ProjectTree
from ..outcomes import count, doctor, purge_total, purged
from ..background import Background
from ..host import AppHost
from .base import KeyGroup


class UpkeepKeys(KeyGroup):
    def __init__(self, app: AppHost, background: Background) -> None:
        super().__init__(app)
        self.background = background


    def doctor(self) -> None:
        def check() -> DoctorReport:
            try:
                return self.app.workbench.upkeep.doctor()
            except RatError as exc:  # findings are the answer here, not a failure
                if isinstance(exc.result, DoctorReport):
                    return exc.result
                raise

        self.app.jobs.run("doctor", check, then=lambda result: self._found(result.findings))

    def _found(self, found: list[Finding]) -> None:
        app = self.app
        sentence = doctor(found)
        app.log_line(sentence, "" if not found else "yellow")
        if not found:  # the answer people wait for: long enough to read
            app.notify(sentence, title="doctor", timeout=12)
            return
        detail = "\n".join(f"{f.kind}: {f.object} — {f.detail} (fix: {f.fix})" for f in found)
        app.push_screen(Confirm(f"Apply the fixes of {count(len(found), 'finding', 'findings')}?", detail),
                        lambda ok: ok and app.jobs.run(
                            "doctor fix", partial(app.workbench.upkeep.doctor, True),
                            lambda result: f"Doctor: fixed {count(len(result.findings), 'finding', 'findings')}.",
                            reload=True))

    def purge(self) -> None:
        self.app.jobs.run("purge plan", partial(self.app.workbench.upkeep.purge, True), then=self._planned)

    def _planned(self, plan: PurgeReport) -> None:
        app = self.app
        total = purge_total(plan.purged)
        if not total:
            app.log_line("Purge: nothing to purge.")
            app.notify("Purge: nothing to purge.", title="purge", timeout=10)
            return
        app.log_line(f"Purge: {count(total, 'item', 'items')} can go; asking first.")
        app.push_screen(Confirm(f"Purge {count(total, 'item', 'items')}?", purge_plan_text(plan)), self._confirmed)

    def _confirmed(self, ok: bool | None) -> None:
        if ok:
            self.app.jobs.run("purge", partial(self.app.workbench.upkeep.purge, False),
                              lambda result: purged(result.purged), reload=True)

    def pull(self) -> None:
        """Bring the bucket's newer files in: of the selected pipeline, or all of them."""
        app = self.app
        remote = app.workbench.remote
        if remote is None:
            app.notify("This project has no bucket (set storage: in rat.yaml).", severity="warning")
            return
        data = app.query_one(ProjectTree).cursor_data
        ref = data.ref if data is not None and data.kind == "pipeline" else None
        base = f"{ref.relpath.as_posix()}/" if ref is not None else ""
        paths = [base.rstrip("/")] if ref is not None else None
        conflicts = [p for p, state in remote.changes.items() if state == "conflict" and p.startswith(base)]

        def pull(force: bool) -> None:
            app.jobs.run("pull", lambda: len(app.workbench.bucket.pull(paths, force).pulled),
                         lambda pulled: f"Pulled {count(pulled, 'file', 'files')} from the bucket.", reload=True,
                         then=lambda _: self.background.check_remote())

        if conflicts:
            app.push_screen(Confirm(f"Take the bucket's copy of {len(conflicts)} file(s) you also edited?",
                                    "\n".join(conflicts) + "\n\nYour edits are kept as local versions (versions panel)."),
                            lambda yes: pull(True) if yes else None)
        else:
            pull(False)
