"""One module per visible part; the app wires them together, the parts do not import each other."""
