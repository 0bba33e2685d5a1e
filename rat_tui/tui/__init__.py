"""The Textual face: renders core state and sends commands; no behaviour of its own."""
