"""Keys on a landing zone under the cursor: upload files into it, edit its settings."""
from __future__ import annotations

import shlex
from functools import partial
from typing import TYPE_CHECKING

from ..components.modals import AskText, PathSuggester, ZoneSettingsForm
from ..components.zone_view import ZoneView
from ..messages import UploadProgress
from ..outcomes import uploaded

if TYPE_CHECKING:
    from ..app import RatApp


class LandingKeys:
    def __init__(self, app: RatApp) -> None:
        self.app = app

    def upload(self) -> None:
        app = self.app
        if (selected := app.target_zone("upload")) is None:
            return
        namespace, zone = selected

        def progress(name: str, copied: int, total: int) -> None:
            app.post_message(UploadProgress(name, copied, total))

        def chosen(value: str | None) -> None:
            if value:
                app.jobs.run("upload", partial(app.workbench.upload, namespace, zone, shlex.split(value),
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
        if (selected := app.target_zone("zone_settings")) is None:
            return
        namespace, zone = selected

        def save(values: dict | None) -> None:
            if values is not None:
                app.jobs.run("zone settings", partial(app.workbench.set_zone_settings, namespace, zone, **values),
                             f"{namespace}/{zone}: settings saved to rat.yaml", reload=True)

        app.push_screen(ZoneSettingsForm(f"Landing zone {namespace}/{zone}",
                                         app.workbench.zone_settings(namespace, zone)), save)
