"""What the keys do, by what they act on: one group per `<what>_keys.py`, and `keyboard.py`, which says
which method each key id calls. Each group reads the tree's cursor (`base.py`), asks what it must (a
modal) and hands the work to a job or a panel; none imports the app: each reaches it through the host
protocol (`host.py`)."""
