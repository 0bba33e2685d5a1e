"""The Workbench's commands, one group per concern; `core.workbench.Workbench` combines them."""
