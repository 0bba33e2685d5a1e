"""The services faces call, one per concern; `core.compose.open_project` builds them from their collaborators."""
