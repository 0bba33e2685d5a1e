"""What every group of keys shares: the app as a host, and the tree node a key acts on."""
from __future__ import annotations

from ..components.project_tree import NodeData, ProjectTree
from ..host import AppHost
from ..keymap import key_label


class KeyGroup:
    def __init__(self, app: AppHost) -> None:
        self.app = app

    def target(self, action_id: str) -> NodeData | None:
        """The tree node under the cursor when it is what the key acts on (keymap `needs`), else None
        after one notice saying so: keys never act on whatever the right side showed last."""
        app = self.app
        key = next(k for k in app.keymap if k.id == action_id)
        data = app.query_one(ProjectTree).cursor_data
        kinds = {"pipeline": ("pipeline", "table"), "table": ("table",), "zone": ("zone",),
                 "node": ("pipeline", "table", "zone")}[key.needs]
        if data is not None and data.kind in kinds:
            return data
        where = data.describe() if data is not None else "nothing"
        wanted = {"zone": "landing zone", "node": "pipeline or landing zone"}.get(key.needs, key.needs)
        app.notify(f"{key_label(key.key)} ({key.description}) needs a {wanted} under the cursor; it is on {where}.",
                   severity="warning")
        return None

    def target_zone(self, action_id: str) -> tuple[str, str] | None:
        data = self.target(action_id)
        return (data.namespace, data.name) if data is not None else None

    def target_pipeline(self, action_id: str) -> str | None:
        data = self.target(action_id)
        return data.ref.fqn if data is not None and data.ref is not None else None
