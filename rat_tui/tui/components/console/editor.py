"""The console's editor: textual-textarea's TextEditor (Harlequin's own: tree-sitter SQL highlighting,
brackets, comments, find, a completion list) with completers fed from the lakehouse catalog."""
from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.message import Message
from textual_textarea import TextEditor
from textual_textarea.autocomplete import CompletionList
from textual_textarea.messages import TextAreaHideCompletionList
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

    # Burst typing (a paste, a fast typist) queues keys faster than they are handled. The editor
    # answered each prefix in a thread worker, so a Tab or Enter right behind the prefix found the
    # list still empty (and was lost), and a late answer opened the list over text that had moved on
    # (where Tab then indented and Enter broke the line under a visible list). Here the list is
    # filled in order with the keys, only for the word still under the cursor.
    @on(TextAreaPlus.ShowCompletionList)
    def _show_completions(self, event: TextAreaPlus.ShowCompletionList) -> None:
        event.stop()
        event.prevent_default()  # not the editor's own handler, which starts the worker
        area = self.text_input
        # The editor's mode may have been reset since by a hide queued before this message: the mode
        # is read from the prefix (the console's word and member completer is one function).
        mode = "path" if area.completer_active == "path" else "member" if "." in event.prefix else "word"
        area.completer_active = mode
        if area._get_word_before_cursor() != event.prefix:
            return  # a later key changed the word: its own message shows or hides the list
        self.update_completion_list_offset(event)
        items = (self.path_completer if mode == "path" else self._complete)(event.prefix)
        if items:
            self.completion_list.populate_and_position_list(CompletionList.CompletionsReady(event.prefix, items))
        else:
            self.hide_completion_list(TextAreaHideCompletionList())

    @on(TextAreaPlus.CompletionListKey)
    def _completion_key(self, event: TextAreaPlus.CompletionListKey) -> None:
        """A key the editor kept for a list that, once its prefix was answered, is not there (nothing
        matched): Tab, Shift+Tab and Enter edit the text as they do without a list."""
        if self.completion_list.is_open:
            return  # the editor's own handler gives it to the list
        event.stop()
        event.prevent_default()
        self.hide_completion_list(TextAreaHideCompletionList())
        handle = {"tab": self.text_input._handle_tab, "shift+tab": self.text_input._handle_shift_tab,
                  "enter": self.text_input._handle_enter}.get(event.key.key)
        if handle is not None:
            handle(event.key)

    # The completer only reads the text. The editor calls it with the word it will replace: a bare
    # word, or after a dot its member word (`silver.or`).
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
        self.post_message(TextAreaHideCompletionList())
