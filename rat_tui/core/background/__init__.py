"""Long-running services a face keeps while it is open: watch-and-run, changes from outside the process,
settings that take effect live, the JVM warm-up."""
