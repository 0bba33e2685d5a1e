"""The console's editor: textual-textarea's TextEditor (Harlequin's own: tree-sitter SQL highlighting,
brackets, comments, find, a completion list) with completers fed from the lakehouse catalog."""
from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.message import Message
from textual_textarea import TextEditor
from textual_textarea.text_editor import TextAreaPlus

from ....core.commands.completion import Completions, Item
from ....core.commands.console_text import offset_of, statement_at


class SqlEditor(TextEditor):
    # Its save/open/find keys still work, listed in help: the footer keeps room for the console's own.
    BINDINGS = [replace(b, show=False) for b in TextEditor.BINDINGS]

    class Edited(Message):
        """The text changed, whoever changed it."""

    def __init__(self, **kwargs) -> None:
        super().__init__(language="sql", theme="monokai", use_system_clipboard=False,
                         word_completer=self._complete, member_completer=self._complete, **kwargs)
        self.completions = Completions({})

    @on(TextAreaPlus.Changed)
    def _edited(self, event: TextAreaPlus.Changed) -> None:
        # An edit the editor makes itself (an accepted completion, a comment toggle, undo) posts its
        # Changed while this widget handles a message, and Textual stops such a message here, at its
        # sender: say it again from here so that every edit reaches the panel (and the buffer store).
        event.stop()
        self.post_message(self.Edited())

    # The completer runs in the completion list's thread worker: it only reads the text. The editor
    # calls it with the word it will replace: a bare word, or after a dot its member word (`silver.or`).
    def _complete(self, replaced: str) -> list[Item]:
        row, column = self.selection.end
        before = str(self.get_line(row))[:column]
        return self.completions.at(before, replaced, self.current_statement())

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
