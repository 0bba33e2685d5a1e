"""The console's editor: textual-textarea's TextEditor (Harlequin's own: tree-sitter SQL highlighting,
brackets, comments, find, a completion list) with completers fed from the lakehouse catalog."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual import events, on
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Label
from textual_textarea import TextEditor
from textual_textarea.autocomplete import CompletionList
from textual_textarea.containers import FooterContainer, TextContainer
from textual_textarea.messages import TextAreaHideCompletionList
from textual_textarea.text_editor import TextAreaPlus

from ....core.commands.completion import Completions, Item
from ....core.commands.console_text import offset_of, statement_at


class KeyOrderedTextArea(TextAreaPlus):
    """textual-textarea's text area, its completion messages handled right after the key that made
    them. Posted, they waited behind every key already queued: under burst typing (a paste, a fast
    typist) a Tab or Enter right behind a prefix found no list yet and was lost, a hide queued before
    a later key's show reset the editor's completion mode, and the list opened over text that had
    moved on, where Tab then indented and Enter broke the line under a visible list."""

    COMPLETION_MESSAGES = (TextAreaPlus.ShowCompletionList, TextAreaPlus.CompletionListKey,
                           TextAreaHideCompletionList)

    def __init__(self, on_completion: Callable[[Message], None], **kwargs) -> None:
        super().__init__(**kwargs)
        self._on_completion = on_completion

    def post_message(self, message: Message) -> bool:
        if isinstance(message, self.COMPLETION_MESSAGES):
            self.call_next(self._on_completion, message)  # after the key's own edit, before the next key
            return True
        return super().post_message(message)


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

    def compose(self) -> ComposeResult:
        # TextEditor's own compose with the key-ordered text area.
        self.text_container = TextContainer()
        self.text_input = KeyOrderedTextArea(self._completion_message, language=self._language,
                                             text=self._initial_text, read_only=self.read_only,
                                             show_cursor=self._show_cursor)
        self.completion_list = CompletionList()
        self.footer = FooterContainer(classes="hide")
        self.footer_label = Label("", id="textarea__save_open_input_label")
        with self.text_container:
            yield self.text_input
            yield self.completion_list
        with self.footer:
            yield self.footer_label

    def _completion_message(self, message: Message) -> None:
        if isinstance(message, TextAreaPlus.ShowCompletionList):
            self._show_completions(message.prefix)
        elif isinstance(message, TextAreaPlus.CompletionListKey):
            self._completion_key(message.key)
        else:
            self.hide_completion_list(TextAreaHideCompletionList())

    def _show_completions(self, prefix: str) -> None:
        # The completer runs here, not in the list's thread worker, whose late answer opened the
        # list over text that had moved on.
        mode = self.text_input.completer_active
        if mode is None:
            return
        self.update_completion_list_offset(None)
        items = (self.path_completer if mode == "path" else self._complete)(prefix)
        if items:
            self.completion_list.populate_and_position_list(CompletionList.CompletionsReady(prefix, items))
        else:
            self.hide_completion_list(TextAreaHideCompletionList())

    def _completion_key(self, key: events.Key) -> None:
        """Tab, Shift+Tab or Enter accept the highlighted name at once (the list's own select posts a
        message, handled after the keys queued behind); with no list they edit as they do without."""
        area, listed = self.text_input, self.completion_list
        if listed.is_open and key.key in ("tab", "shift+tab", "enter"):
            if listed.highlighted is not None:
                option = listed.get_option_at_index(listed.highlighted)
                area.replace_current_word(getattr(option, "value", None) or str(option.prompt))
            self.hide_completion_list(TextAreaHideCompletionList())
        elif listed.is_open:
            listed.process_keypress(key)
        else:
            self.hide_completion_list(TextAreaHideCompletionList())
            edit = {"tab": area._handle_tab, "shift+tab": area._handle_shift_tab, "enter": area._handle_enter,
                    "up": lambda _: area.action_cursor_up(), "down": lambda _: area.action_cursor_down(),
                    "pageup": lambda _: area.action_cursor_page_up(),
                    "pagedown": lambda _: area.action_cursor_page_down()}.get(key.key)
            if edit is not None:
                edit(key)

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
