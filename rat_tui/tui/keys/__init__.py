"""What the keys do, by what they act on; the app binds each key to one of these methods. Each reads the
tree's cursor through the app, asks what it must (a modal) and hands the work to a job or a panel."""
