"""The console's editor: textual-textarea's TextEditor (Harlequin's own: tree-sitter SQL highlighting,
brackets, comments, find, a completion list) with completers fed from the lakehouse catalog."""
from __future__ import annotations

import re
from dataclasses import replace

from textual_textarea import TextEditor

from ....core.commands.completion import Completions, Item
from ....core.commands.console_text import offset_of, statement_at

_CHAIN = re.compile(r"[\w`-]+(?:\.[\w`-]*)+$")


class SqlEditor(TextEditor):
    # Its save/open/find keys still work, listed in help: the footer keeps room for the console's own.
    BINDINGS = [replace(b, show=False) for b in TextEditor.BINDINGS]

    def __init__(self, **kwargs) -> None:
        super().__init__(language="sql", theme="monokai", use_system_clipboard=False,
                         word_completer=self._complete_word, member_completer=self._complete_member, **kwargs)
        self.completions = Completions({})

    # The completers run in the completion list's thread worker: they only read the text.
    def _complete_word(self, prefix: str) -> list[Item]:
        return self.completions.words(prefix, self.current_statement())

    def _complete_member(self, prefix: str) -> list[Item]:
        row, column = self.selection.end
        line = self.get_line(row)[:column]
        match = _CHAIN.search(str(line))
        chain = match.group(0).replace("`", "") if match else prefix
        return self.completions.members(chain, prefix, self.current_statement())

    def current_statement(self) -> str:
        """The selection when there is one, else the statement the cursor is in."""
        selected = self.selected_text
        if selected.strip():
            return selected.strip()
        row, column = self.selection.end
        text = self.text
        return statement_at(text, offset_of(text, row, column))

    def insert_name(self, name: str) -> None:
        self.insert_text_at_selection(name)

    @property
    def completion_open(self) -> bool:
        return bool(self.completion_list.is_open)

    def close_completion(self) -> None:
        from textual_textarea.messages import TextAreaHideCompletionList

        self.post_message(TextAreaHideCompletionList())
