"""The core: project model, runner, catalog, versions and state. Knows nothing of Textual."""
