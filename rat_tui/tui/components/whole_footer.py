"""The key bar: Textual's footer, with every hint whole."""
from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ..keymap import DEFAULT_KEYMAP


class WholeHintsFooter(Footer):
    """Textual's footer cut the last hint where the bar ends (`c Ca`, `q ▏`). A hint that does not fit
    whole before the palette key is left out (help and the palette list every key). Help's own hint
    always stays: it came last, and a terminal of 80 columns showed no way to it.

    Widths are measured from the hints' text as they are composed, not read from the layout after a
    refresh: the footer recomposes as the palette opens, and the screen shown under the palette kept
    the hints of that moment, so a hint dropped one refresh later still showed cut there."""

    async def recompose(self) -> None:
        await super().recompose()
        self._fit_hints()

    def on_resize(self) -> None:
        self._fit_hints()  # a wider bar may hold hints a narrower one left out

    def _fit_hints(self) -> None:
        if not self.size.width:
            return  # not laid out yet: its first resize fits them
        keys = list(self.query(FooterKey))
        kept = [key for key in keys if key.has_class("-command-palette") or _is_help(key)]
        room = self.size.width - sum(self._width(key) for key in kept)
        right = 0
        for key in keys:
            if key not in kept:
                right += self._width(key)
                key.display = right <= room

    def _width(self, key: FooterKey) -> int:
        return key.get_content_width(self.size, self.app.size) + key.styles.gutter.width + key.styles.margin.width


HELP_ACTION = next(k.binding_action for k in DEFAULT_KEYMAP if k.id == "help")  # remaps move its key, not this


def _is_help(key: FooterKey) -> bool:
    return key.action == HELP_ACTION
