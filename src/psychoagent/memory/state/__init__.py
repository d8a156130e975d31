"""What a memory keeps in process: the resources its namespace views share, each namespace's affect state and
monitor, and `Namespace`, the handle the facade gives the write path, recall and consolidation."""
