"""The key bar: Textual's footer, with every hint whole."""
from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class WholeHintsFooter(Footer):
    """Textual's footer cut the last hint where the bar ends (`c Ca`, `q ▏`). A hint that does not fit
    whole before the palette key is left out (help and the palette list every key)."""

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._drop_cut_hints)

    def on_resize(self) -> None:
        for key in self.query(FooterKey):
            key.display = True  # a wider bar may hold hints a narrower one left out
        self.call_after_refresh(self._drop_cut_hints)

    def _drop_cut_hints(self) -> None:
        palette = self.query("FooterKey.-command-palette")
        room = self.size.width - (palette.first().outer_size.width if palette else 0)
        for key in self.query(FooterKey):
            if not key.has_class("-command-palette") and key.virtual_region_with_margin.right > room:
                key.display = False
