"""Keys on a landing zone under the cursor: upload files into it, edit its settings, pin its dialect."""
from __future__ import annotations

import shlex
from functools import partial

from ...core.commands.landing_results import DetectedDialect
from ..components.modals import AskText, Confirm, PathSuggester, ZoneSettingsForm
from ..components.zone_view import ZoneView
from ..messages import UploadProgress
from ..outcomes import uploaded
from .base import KeyGroup


class LandingKeys(KeyGroup):
    def upload(self) -> None:
        app = self.app
        if (selected := self.target_zone("upload")) is None:
            return
        namespace, zone = selected

        def progress(name: str, copied: int, total: int) -> None:
            app.post_message(UploadProgress(name, copied, total))

        def chosen(value: str | None) -> None:
            if value:
                app.jobs.run("upload", partial(app.workbench.landing.upload, namespace, zone, shlex.split(value),
                                               progress=progress),
                             lambda result: uploaded(result, namespace, zone), reload=True, ended=self._ended)

        app.push_screen(AskText(f"Upload into {namespace}/landing/{zone}: file paths (space-separated, → completes)",
                                "~/Downloads/orders_2024_05.csv", suggester=PathSuggester()), chosen)

    def progress(self, message: UploadProgress) -> None:
        view = self.app.detail.current(ZoneView)
        if view is not None:
            view.show_progress(message.name, message.copied, message.total)

    def _ended(self) -> None:
        """The copy and the typed conversion are over (or failed): the bar and its sentence go."""
        view = self.app.detail.current(ZoneView)
        if view is not None:
            view.upload_ended()

    def settings(self) -> None:
        app = self.app
        if (selected := self.target_zone("zone_settings")) is None:
            return
        namespace, zone = selected

        def save(values: dict | None) -> None:
            if values == {}:
                app.notify(f"{namespace}/{zone}: nothing changed; rat.yaml left as it was.")
            elif values is not None:
                app.jobs.run("zone settings", partial(app.workbench.landing.set_zone_settings, namespace, zone, **values),
                             f"{namespace}/{zone}: settings saved to rat.yaml", reload=True)

        app.push_screen(ZoneSettingsForm(f"Landing zone {namespace}/{zone}",
                                         app.workbench.landing.zone_settings(namespace, zone)), save)

    def pin_dialect(self) -> None:
        """Show what the zone panel detected for its file as the rat.yaml lines pinning it, and write them
        when confirmed: then every file of the zone is read that way instead of being detected."""
        app = self.app
        if (selected := self.target_zone("pin_dialect")) is None:
            return
        namespace, zone = selected
        view = app.detail.current(ZoneView)
        file = view.dialect_file() if view is not None and (view.namespace, view.zone) == selected else None
        if file is None:
            app.notify(f"{namespace}/landing/{zone} has no active delimited text file whose dialect was detected.",
                       severity="warning")
            return

        def confirm(detected: DetectedDialect) -> None:
            lines = "\n".join(f"        {k}: {str(v).lower() if isinstance(v, bool) else repr(v)}"
                              for k, v in detected.csv.items())
            differs = (f"\n\nDetected otherwise, and then read this way: {', '.join(detected.differs)}"
                       if detected.differs else "")
            app.push_screen(
                Confirm(f"Pin the dialect of {file} for {namespace}/landing/{zone}?",
                        f"Writes into rat.yaml (comments kept):\n  zones:\n    {detected.zone}:\n      csv:\n"
                        f"{lines}\nEvery file of the zone is then read this way instead of being detected."
                        f"{differs}"),
                lambda ok: ok and app.jobs.run(
                    "pin dialect", partial(app.workbench.landing.pin_dialect, namespace, zone, file),
                    f"{namespace}/{zone}: the dialect of {file} is pinned in rat.yaml", reload=True))

        app.jobs.run("pin dialect", partial(app.workbench.landing.detected_dialect, namespace, zone, file), toast=False,
                     then=confirm)
